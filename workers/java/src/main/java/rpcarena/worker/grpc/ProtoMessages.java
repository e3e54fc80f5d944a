package rpcarena.worker.grpc;

import rpcarena.arena.AverageReply;
import rpcarena.arena.DoubleMsg;
import rpcarena.arena.Empty;
import rpcarena.arena.HelloReply;
import rpcarena.arena.HelloRequest;
import rpcarena.arena.Numbers;
import rpcarena.arena.RandRequest;
import rpcarena.arena.Vector3;
import rpcarena.arena.VectorPair;
import rpcarena.arena.Word;
import rpcarena.worker.semantics.Messages;

/**
 * The operations' messages as protobuf-java classes. Typed as Object because grpc-java also
 * carries the large int32 echoes as {@link IntFields}, which only the echo row touches.
 */
final class ProtoMessages implements Messages<Object> {
    static final ProtoMessages INSTANCE = new ProtoMessages();

    private ProtoMessages() {}

    @Override
    public Object empty() {
        return Empty.getDefaultInstance();
    }

    /** An unset vector reads as the default instance, the origin. */
    @Override
    public double[] vectorPairCoordinates(Object request) {
        Vector3 a = ((VectorPair) request).getA();
        Vector3 b = ((VectorPair) request).getB();
        return new double[] {a.getX(), a.getY(), a.getZ(), b.getX(), b.getY(), b.getZ()};
    }

    @Override
    public Object doubleMsg(double value) {
        return DoubleMsg.newBuilder().setValue(value).build();
    }

    @Override
    public String helloRequestName(Object request) {
        return ((HelloRequest) request).getName();
    }

    @Override
    public Object helloReply(String message) {
        return HelloReply.newBuilder().setMessage(message).build();
    }

    @Override
    public int[] numbersValues(Object request) {
        Numbers numbers = (Numbers) request;
        int[] values = new int[numbers.getValuesCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = numbers.getValues(i);
        }
        return values;
    }

    @Override
    public Object numbers(int[] values) {
        Numbers.Builder reply = Numbers.newBuilder();
        for (int v : values) {
            reply.addValues(v);
        }
        return reply.build();
    }

    @Override
    public Object averageReply(double value) {
        return AverageReply.newBuilder().setValue(value).build();
    }

    @Override
    public int randRequestCount(Object request) {
        return ((RandRequest) request).getCount();
    }

    @Override
    public int randRequestSeed(Object request) {
        return ((RandRequest) request).getSeed();
    }

    @Override
    public String wordValue(Object request) {
        return ((Word) request).getValue();
    }

    @Override
    public Object word(String value) {
        return Word.newBuilder().setValue(value).build();
    }
}
