package rpcarena.worker.grpc;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoUtils;
import java.util.ArrayList;
import java.util.List;
import rpcarena.arena.ArenaGrpc;
import rpcarena.arena.Int32Msg;
import rpcarena.pojo.ProtoSplit;
import rpcarena.worker.core.Spec;
import rpcarena.worker.core.SpecError;
import rpcarena.worker.userschema.UserMethod;

/** One rpc (of arena.Arena, or a user's) as grpc-java carries it: its descriptor and its JSON mapping. */
record GrpcMethod(MethodDescriptor<Object, Object> descriptor, MessageJson request, MessageJson response) {

    static final List<GrpcMethod> ALL = all();
    static final ServiceDescriptor SERVICE = service();

    String name() {
        return descriptor.getBareMethodName();
    }

    /** The spec's method: the user's when the spec carries a schema, else arena.Arena's. */
    static GrpcMethod of(Spec spec) throws SpecError {
        return spec.user() ? user(UserMethod.lookup(spec.method())) : byName(spec.method());
    }

    /**
     * A user's method as its generated {@code *Grpc} class would describe it: a MethodDescriptor
     * with protobuf marshallers of the generated messages (made at run time, the schema being known
     * only then).
     */
    static GrpcMethod user(UserMethod method) {
        MethodDescriptor<Message, Message> d = MethodDescriptor.<Message, Message>newBuilder()
                .setType(method.type())
                .setFullMethodName(method.key())
                .setRequestMarshaller(ProtoUtils.marshaller(method.request()))
                .setResponseMarshaller(ProtoUtils.marshaller(method.reply()))
                .build();
        return new GrpcMethod(cast(d), ProtoJson.user(method.request(), method), ProtoJson.user(method.reply(), method));
    }

    static GrpcMethod byName(String name) throws SpecError {
        for (GrpcMethod m : ALL) {
            if (m.name().equals(name)) {
                return m;
            }
        }
        throw new SpecError("unknown method '" + name + "' in service arena.Arena");
    }

    /** The protoc-generated methods, then the int32 echoes left out of the Java schema (ProtoSplit). */
    private static List<GrpcMethod> all() {
        List<GrpcMethod> all = new ArrayList<>();
        for (MethodDescriptor<?, ?> d : ArenaGrpc.getServiceDescriptor().getMethods()) {
            MethodDescriptor<Object, Object> m = cast(d);
            all.add(new GrpcMethod(m, ProtoJson.arena(prototype(m.getRequestMarshaller())),
                    ProtoJson.arena(prototype(m.getResponseMarshaller()))));
        }
        ProtoSplit.INT32_ECHO_RPCS.forEach((name, count) -> all.add(int32Echo(name, count)));
        ProtoSplit.INT32_READ_RPCS.forEach((name, count) -> all.add(int32Read(name, count)));
        return List.copyOf(all);
    }

    private static GrpcMethod int32Echo(String name, int count) {
        IntFieldsMarshaller marshaller = new IntFieldsMarshaller(count);
        MethodDescriptor<IntFields, IntFields> d = MethodDescriptor.<IntFields, IntFields>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(ArenaGrpc.SERVICE_NAME, name))
                .setRequestMarshaller(marshaller)
                .setResponseMarshaller(marshaller)
                .build();
        IntFields.JsonMapping json = new IntFields.JsonMapping(count);
        return new GrpcMethod(cast(d), json, json);
    }

    /** An rpc that reads a message left out of the Java schema and answers an Int32Msg (a checksum). */
    private static GrpcMethod int32Read(String name, int count) {
        Int32Msg reply = Int32Msg.getDefaultInstance();
        MethodDescriptor<IntFields, Int32Msg> d = MethodDescriptor.<IntFields, Int32Msg>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(ArenaGrpc.SERVICE_NAME, name))
                .setRequestMarshaller(new IntFieldsMarshaller(count))
                .setResponseMarshaller(ProtoUtils.marshaller(reply))
                .build();
        return new GrpcMethod(cast(d), new IntFields.JsonMapping(count), ProtoJson.arena(reply));
    }

    private static ServiceDescriptor service() {
        ServiceDescriptor.Builder b = ServiceDescriptor.newBuilder(ArenaGrpc.SERVICE_NAME);
        ALL.forEach(m -> b.addMethod(m.descriptor));
        return b.build();
    }

    @SuppressWarnings("unchecked")
    private static MethodDescriptor<Object, Object> cast(MethodDescriptor<?, ?> method) {
        return (MethodDescriptor<Object, Object>) method;
    }

    @SuppressWarnings("unchecked")
    private static Message prototype(MethodDescriptor.Marshaller<?> marshaller) {
        return ((MethodDescriptor.PrototypeMarshaller<Message>) marshaller).getMessagePrototype();
    }
}
