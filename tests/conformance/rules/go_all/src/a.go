package main

import "fmt"

func f(s string) string {
	x := fmt.Sprintf("hi")
	y := fmt.Sprintf(s)
	return x + y
}
