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
import rpcarena.worker.semantics.Semantics;

/** The server side of every unary method on the plain Java classes (http-json, http-javaser). */
public final class PojoSemantics {
    private static final Vector3 ORIGIN = new Vector3();

    private PojoSemantics() {}

    public static Object respond(String method, Object request) {
        return switch (method) {
            case "Void" -> new Empty();
            case "Distance" -> distance((VectorPair) request);
            case "SayHello" -> hello((HelloRequest) request);
            case "Average" -> average((Numbers) request);
            case "GetRandNums" -> randNums((RandRequest) request);
            case "Invert" -> invert((Word) request);
            default -> request;  // every Echo* returns its argument unchanged
        };
    }

    private static DoubleMsg distance(VectorPair p) {
        Vector3 a = p.a == null ? ORIGIN : p.a;
        Vector3 b = p.b == null ? ORIGIN : p.b;
        DoubleMsg reply = new DoubleMsg();
        reply.value = Semantics.distance(a.x, a.y, a.z, b.x, b.y, b.z);
        return reply;
    }

    private static HelloReply hello(HelloRequest request) {
        HelloReply reply = new HelloReply();
        reply.message = Semantics.sayHello(request.name);
        return reply;
    }

    private static AverageReply average(Numbers request) {
        AverageReply reply = new AverageReply();
        reply.value = Semantics.average(request.values);
        return reply;
    }

    private static Numbers randNums(RandRequest request) {
        Numbers reply = new Numbers();
        reply.values = Semantics.randNums(request.count, (int) request.seed);
        return reply;
    }

    private static Word invert(Word request) {
        Word reply = new Word();
        reply.value = Semantics.invert(request.value);
        return reply;
    }
}
