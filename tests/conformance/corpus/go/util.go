package main

import "fmt"

type Point struct {
	X, Y int
}

func (p Point) String() string {
	return fmt.Sprintf("(%d, %d)", p.X, p.Y)
}

func same(p, q Point) bool {
	if p == p {
		fmt.Println("always")
	}
	return p.X == q.X && p.Y == q.Y
}
