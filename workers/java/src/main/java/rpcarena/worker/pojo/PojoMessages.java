package rpcarena.worker.pojo;

import rpcarena.pojo.AverageReply;
import rpcarena.pojo.DoubleMsg;
import rpcarena.pojo.Empty;
import rpcarena.pojo.HelloReply;
import rpcarena.pojo.HelloRequest;
import rpcarena.pojo.Int32Msg;
import rpcarena.pojo.Numbers;
import rpcarena.pojo.RandRequest;
import rpcarena.pojo.Vector3;
import rpcarena.pojo.VectorPair;
import rpcarena.pojo.Word;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import rpcarena.worker.semantics.Messages;

/** The operations' messages as the generated plain classes (http-json, http-javaser). */
public final class PojoMessages implements Messages<Object> {
    public static final PojoMessages INSTANCE = new PojoMessages();
    private static final Vector3 ORIGIN = new Vector3();
    /** Each LargeData class's fields f1..fN, in order, found once per class. */
    private static final Map<Class<?>, Field[]> LARGE_FIELDS = new ConcurrentHashMap<>();

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

    /** The generated class has one public int per field (f1..fN) and no array: read each by name. */
    @Override
    public int[] largeDataValues(Object request) {
        Field[] fields = LARGE_FIELDS.computeIfAbsent(request.getClass(), PojoMessages::fieldsInOrder);
        int[] values = new int[fields.length];
        try {
            for (int i = 0; i < values.length; i++) {
                values[i] = fields[i].getInt(request);
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("generated fields are public: " + e.getMessage(), e);
        }
        return values;
    }

    private static Field[] fieldsInOrder(Class<?> type) {
        int count = (int) java.util.Arrays.stream(type.getFields()).filter(f -> f.getName().matches("f\\d+")).count();
        Field[] fields = new Field[count];
        try {
            for (int i = 0; i < count; i++) {
                fields[i] = type.getField("f" + (i + 1));
            }
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(type.getName() + " is not int32 f1..fN: " + e.getMessage(), e);
        }
        return fields;
    }

    @Override
    public Object int32Msg(int value) {
        Int32Msg reply = new Int32Msg();
        reply.value = value;
        return reply;
    }
}
