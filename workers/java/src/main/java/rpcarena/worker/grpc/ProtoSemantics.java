package rpcarena.worker.grpc;

import com.google.protobuf.Message;
import java.util.function.UnaryOperator;
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
import rpcarena.worker.semantics.Semantics;

/** The server side of every unary method on the protobuf-java messages, chosen once per method. */
final class ProtoSemantics {
    private ProtoSemantics() {}

    static UnaryOperator<Message> of(String method) {
        return switch (method) {
            case "Void" -> request -> Empty.getDefaultInstance();
            case "Distance" -> request -> distance((VectorPair) request);
            case "SayHello" -> request -> HelloReply.newBuilder()
                    .setMessage(Semantics.sayHello(((HelloRequest) request).getName())).build();
            case "Average" -> request -> average((Numbers) request);
            case "GetRandNums" -> request -> randNums((RandRequest) request);
            case "Invert" -> request -> invert((Word) request);
            default -> request -> request;  // every Echo* returns its argument unchanged
        };
    }

    static Word invert(Word request) {
        return Word.newBuilder().setValue(Semantics.invert(request.getValue())).build();
    }

    private static DoubleMsg distance(VectorPair p) {
        Vector3 a = p.getA();
        Vector3 b = p.getB();
        double d = Semantics.distance(a.getX(), a.getY(), a.getZ(), b.getX(), b.getY(), b.getZ());
        return DoubleMsg.newBuilder().setValue(d).build();
    }

    private static AverageReply average(Numbers request) {
        int[] values = new int[request.getValuesCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = request.getValues(i);
        }
        return AverageReply.newBuilder().setValue(Semantics.average(values)).build();
    }

    private static Numbers randNums(RandRequest request) {
        Numbers.Builder reply = Numbers.newBuilder();
        for (int v : Semantics.randNums(request.getCount(), request.getSeed())) {
            reply.addValues(v);
        }
        return reply.build();
    }
}
