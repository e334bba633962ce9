package main

import (
	"errors"
	"fmt"
)

func divide(a, b int) (int, error) {
	if b == 0 {
		return 0, errors.New("division by zero")
	}
	return a / b, nil
}

func main() {
	fmt.Println("OK")
	res, err := divide(4, 2)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("result", res)
}
