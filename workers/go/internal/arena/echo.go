package arena

import (
	"context"

	pb "rpcarena/workers/go/arenapb"
)

// Every Echo* operation returns its argument unchanged.

func (Service) EchoBool(_ context.Context, m *pb.BoolMsg) (*pb.BoolMsg, error)       { return m, nil }
func (Service) EchoInt32(_ context.Context, m *pb.Int32Msg) (*pb.Int32Msg, error)    { return m, nil }
func (Service) EchoInt64(_ context.Context, m *pb.Int64Msg) (*pb.Int64Msg, error)    { return m, nil }
func (Service) EchoString(_ context.Context, m *pb.StringMsg) (*pb.StringMsg, error) { return m, nil }
func (Service) EchoInts(_ context.Context, m *pb.Int32List) (*pb.Int32List, error)   { return m, nil }
func (Service) EchoFloats(_ context.Context, m *pb.DoubleList) (*pb.DoubleList, error) {
	return m, nil
}
func (Service) EchoStrings(_ context.Context, m *pb.StringList) (*pb.StringList, error) {
	return m, nil
}
func (Service) EchoPerson(_ context.Context, m *pb.Person) (*pb.Person, error)    { return m, nil }
func (Service) EchoItems(_ context.Context, m *pb.ItemList) (*pb.ItemList, error) { return m, nil }

func (Service) EchoLargeData128(_ context.Context, m *pb.LargeData128) (*pb.LargeData128, error) {
	return m, nil
}
func (Service) EchoLargeData256(_ context.Context, m *pb.LargeData256) (*pb.LargeData256, error) {
	return m, nil
}
func (Service) EchoLargeData512(_ context.Context, m *pb.LargeData512) (*pb.LargeData512, error) {
	return m, nil
}
func (Service) EchoLargeData1024(_ context.Context, m *pb.LargeData1024) (*pb.LargeData1024, error) {
	return m, nil
}
func (Service) EchoLargeData2048(_ context.Context, m *pb.LargeData2048) (*pb.LargeData2048, error) {
	return m, nil
}
func (Service) EchoLargeData4096(_ context.Context, m *pb.LargeData4096) (*pb.LargeData4096, error) {
	return m, nil
}
func (Service) EchoLargeData8192(_ context.Context, m *pb.LargeData8192) (*pb.LargeData8192, error) {
	return m, nil
}
