package rpcarena.worker.pojo;

import rpcarena.pojo.AverageReply;
import rpcarena.pojo.DoubleMsg;
import rpcarena.pojo.Empty;
import rpcarena.pojo.HelloReply;
import rpcarena.pojo.HelloRequest;
import rpcarena.pojo.Numbers;
import rpcarena.pojo.RandRequest;
import rpcarena.pojo.Vector3;
import rpcarena.pojo.VectorPair;
import rpcarena.pojo.Word;
import rpcarena.worker.semantics.Messages;

/** The operations' messages as the generated plain classes (http-json, http-javaser). */
public final class PojoMessages implements Messages<Object> {
    public static final PojoMessages INSTANCE = new PojoMessages();
    private static final Vector3 ORIGIN = new Vector3();

    private PojoMessages() {}

    @Override
    public Object empty() {
        return new Empty();
    }

    /** A vector the JSON left out is null here: read it as the origin, as protobuf would. */
    @Override
    public double[] vectorPairCoordinates(Object request) {
        VectorPair p = (VectorPair) request;
        Vector3 a = p.a == null ? ORIGIN : p.a;
        Vector3 b = p.b == null ? ORIGIN : p.b;
        return new double[] {a.x, a.y, a.z, b.x, b.y, b.z};
    }

    @Override
    public Object doubleMsg(double value) {
        DoubleMsg reply = new DoubleMsg();
        reply.value = value;
        return reply;
    }

    @Override
    public String helloRequestName(Object request) {
        return ((HelloRequest) request).name;
    }

    @Override
    public Object helloReply(String message) {
        HelloReply reply = new HelloReply();
        reply.message = message;
        return reply;
    }

    @Override
    public int[] numbersValues(Object request) {
        return ((Numbers) request).values;
    }

    @Override
    public Object numbers(int[] values) {
        Numbers reply = new Numbers();
        reply.values = values;
        return reply;
    }

    @Override
    public Object averageReply(double value) {
        AverageReply reply = new AverageReply();
        reply.value = value;
        return reply;
    }

    @Override
    public int randRequestCount(Object request) {
        return ((RandRequest) request).count;
    }

    /** The plain class keeps uint32 in a long (so JSON's 4294967295 stays exact); its low 32 bits. */
    @Override
    public int randRequestSeed(Object request) {
        return (int) ((RandRequest) request).seed;
    }

    @Override
    public String wordValue(Object request) {
        return ((Word) request).value;
    }

    @Override
    public Object word(String value) {
        Word reply = new Word();
        reply.value = value;
        return reply;
    }
}
