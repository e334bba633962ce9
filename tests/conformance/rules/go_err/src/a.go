package main

func f() error {
	err := g()
	if err != nil {
		return err
	}
	return nil
}
