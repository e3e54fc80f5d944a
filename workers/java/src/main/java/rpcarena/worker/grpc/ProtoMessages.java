package rpcarena.worker.grpc;

import rpcarena.arena.AverageReply;
import rpcarena.arena.DoubleMsg;
import rpcarena.arena.Empty;
import rpcarena.arena.HelloReply;
import rpcarena.arena.HelloRequest;
import rpcarena.arena.Int32Msg;
import rpcarena.arena.Numbers;
import rpcarena.arena.RandRequest;
import rpcarena.arena.Vector3;
import rpcarena.arena.VectorPair;
import rpcarena.arena.Word;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.util.List;
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

    /**
     * Over 1,024 fields the message is {@link IntFields} already; below, protobuf-java's generated
     * class is read field by field through its descriptor (it has no array of its fields).
     */
    @Override
    public int[] largeDataValues(Object request) {
        if (request instanceof IntFields fields) {
            return fields.values;
        }
        Message message = (Message) request;
        List<FieldDescriptor> fields = message.getDescriptorForType().getFields();
        int[] values = new int[fields.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = (Integer) message.getField(fields.get(i));
        }
        return values;
    }

    @Override
    public Object int32Msg(int value) {
        return Int32Msg.newBuilder().setValue(value).build();
    }
}
