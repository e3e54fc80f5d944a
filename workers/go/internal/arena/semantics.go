// Package arena holds the service every Go server answers with: the reference
// semantics of docs/worker-contract.md (src/rpcarena/protocol/semantics.py) on Go values,
// and the arena.Arena implementation built on them; and the lookup of every rpc
// the worker knows in proto/ (predictions.Predictions too).
package arena

import (
	"fmt"
	"math"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const (
	lcgMultiplier = 1664525
	lcgIncrement  = 1013904223
)

// MaxCount caps GetRandNums' count and any count a peer announces, the same in
// every language (semantics.MAX_COUNT in src/rpcarena/protocol/semantics.py):
// at 2^31 values one call would cost 8 GiB.
const MaxCount = 1_000_000

// Refused is a request an operation will not run: the caller's error. grpc-go
// answers it as INVALID_ARGUMENT (GRPCStatus), rest-go as 400, tagless-go as
// bad_request, each with the message.
type Refused struct{ msg string }

func (e *Refused) Error() string { return e.msg }

// GRPCStatus is how grpc-go finds the status of an error a handler returns.
func (e *Refused) GRPCStatus() *status.Status { return status.New(codes.InvalidArgument, e.msg) }

// CheckCount refuses a count over MaxCount, before anything is allocated for it.
func CheckCount(what string, count int64) error {
	if count > MaxCount {
		return &Refused{fmt.Sprintf("%s %d is over the cap of %d: ask for fewer", what, count, MaxCount)}
	}
	return nil
}

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

// RandNums emits count states of Numerical Recipes' LCG over uint32, each read
// as int32; a count over MaxCount is Refused.
func RandNums(count int32, seed uint32) ([]int32, error) {
	if err := CheckCount("GetRandNums count", int64(count)); err != nil {
		return nil, err
	}
	values := make([]int32, 0, max(count, 0))
	state := seed
	for range count {
		state = state*lcgMultiplier + lcgIncrement // wraps mod 2^32
		values = append(values, int32(state))
	}
	return values, nil
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
