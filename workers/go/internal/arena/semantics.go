// Package arena holds the service every Go server answers with: the reference
// semantics of docs/worker-contract.md (src/rpcarena/protocol/semantics.py) on Go values,
// and the arena.Arena implementation built on them; and the lookup of every rpc
// the worker knows in proto/ (predictions.Predictions too).
package arena

import (
	"math"
	"slices"
)

const (
	lcgMultiplier = 1664525
	lcgIncrement  = 1013904223
)

// Hello is "Hello " + name.
func Hello(name string) string { return "Hello " + name }

// Average is double(sum as int64) / count, and 0 for no values.
func Average(values []int32) float64 {
	if len(values) == 0 {
		return 0
	}
	var sum int64
	for _, v := range values {
		sum += int64(v)
	}
	return float64(sum) / float64(len(values))
}

// RandNums emits count states of Numerical Recipes' LCG over uint32, each read as int32.
func RandNums(count int32, seed uint32) []int32 {
	values := make([]int32, 0, max(count, 0))
	state := seed
	for range count {
		state = state*lcgMultiplier + lcgIncrement // wraps mod 2^32
		values = append(values, int32(state))
	}
	return values
}

// Invert reverses a string by Unicode code points.
func Invert(word string) string {
	runes := []rune(word)
	slices.Reverse(runes)
	return string(runes)
}

// Distance is sqrt(dx*dx + dy*dy + dz*dz), summed left to right. The explicit
// float64 conversions forbid the compiler to fuse multiply-adds (Go spec).
func Distance(ax, ay, az, bx, by, bz float64) float64 {
	dx, dy, dz := ax-bx, ay-by, az-bz
	return math.Sqrt(float64(float64(dx*dx)+float64(dy*dy)) + float64(dz*dz))
}
