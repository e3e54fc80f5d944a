package nfq

// held is a packet waiting in the kernel for its verdict.
type held struct {
	id      uint32
	release int64 // CLOCK_MONOTONIC nanoseconds
	size    int
}

// heldHeap orders held packets by release time, then by arrival (id): without
// reordering the release times never decrease, so it pops them in arrival order.
type heldHeap []held

func (h heldHeap) Len() int { return len(h) }
func (h heldHeap) Less(i, j int) bool {
	if h[i].release != h[j].release {
		return h[i].release < h[j].release
	}
	return h[i].id < h[j].id
}
func (h heldHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *heldHeap) Push(x any)   { *h = append(*h, x.(held)) }
func (h *heldHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
