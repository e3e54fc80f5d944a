package arena

import (
	"math"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Tolerances of the contract: doubles compare relatively within 1e-9, floats 1e-6.
const (
	doubleTolerance = 1e-9
	floatTolerance  = 1e-6
)

// Equal reports whether two messages of one type carry the same values, with the
// contract's tolerance for floating point. Unset fields equal their defaults.
func Equal(a, b proto.Message) bool {
	return equalMessage(a.ProtoReflect(), b.ProtoReflect())
}

func equalMessage(a, b protoreflect.Message) bool {
	if a.Descriptor() != b.Descriptor() {
		return false
	}
	fields := a.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !equalField(fd, a.Get(fd), b.Get(fd)) {
			return false
		}
	}
	return true
}

func equalField(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) bool {
	if !fd.IsList() {
		return equalValue(fd, a, b)
	}
	la, lb := a.List(), b.List()
	if la.Len() != lb.Len() {
		return false
	}
	for i := range la.Len() {
		if !equalValue(fd, la.Get(i), lb.Get(i)) {
			return false
		}
	}
	return true
}

func equalValue(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) bool {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return equalMessage(a.Message(), b.Message())
	case protoreflect.DoubleKind:
		return near(a.Float(), b.Float(), doubleTolerance)
	case protoreflect.FloatKind:
		return near(a.Float(), b.Float(), floatTolerance)
	default:
		return a.Equal(b)
	}
}

// near compares relatively; exact equality covers zeros and infinities.
func near(a, b, tolerance float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= tolerance*math.Max(math.Abs(a), math.Abs(b))
}
