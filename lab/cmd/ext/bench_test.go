package main

import (
	"testing"

	"github.com/writegc/writegc/gcmetrics/gcbench"
)

type node struct {
	next *node
	val  [4]*int
}

var sink *node

func BenchmarkPointerHeavy(b *testing.B) {
	m := gcbench.Start(b)
	for i := 0; i < b.N; i++ {
		var head *node
		for j := 0; j < 1000; j++ {
			x := j
			head = &node{next: head, val: [4]*int{&x, &x, &x, &x}}
		}
		sink = head
	}
	b.StopTimer()
	m.Stop()
}

func BenchmarkAllocFree(b *testing.B) {
	var a [64]uint64
	m := gcbench.Start(b)
	for i := 0; i < b.N; i++ {
		for j := range a {
			a[j] = a[j]*31 + uint64(i)
		}
	}
	b.StopTimer()
	m.Stop()
	_ = a
}
