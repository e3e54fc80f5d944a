package rpcarena.worker.grpc;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The protobuf wire format of int32 fields 1..N, with protobuf-java's CodedInputStream and
 * CodedOutputStream: proto3 writes non-zero fields in field order, reads skip unknown fields.
 */
final class IntFieldsMarshaller implements MethodDescriptor.Marshaller<IntFields> {
    private static final int WIRETYPE_VARINT = 0;

    private final int count;

    IntFieldsMarshaller(int count) {
        this.count = count;
    }

    @Override
    public InputStream stream(IntFields message) {
        int[] values = message.values;
        int size = 0;
        for (int i = 0; i < values.length; i++) {
            size += values[i] == 0 ? 0 : CodedOutputStream.computeInt32Size(i + 1, values[i]);
        }
        byte[] bytes = new byte[size];
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            for (int i = 0; i < values.length; i++) {
                if (values[i] != 0) {
                    out.writeInt32(i + 1, values[i]);
                }
            }
            out.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new IllegalStateException("the size computed for the message was wrong", e);
        }
        return new ByteArrayInputStream(bytes);
    }

    @Override
    public IntFields parse(InputStream stream) {
        try {
            CodedInputStream in = CodedInputStream.newInstance(stream);
            int[] values = new int[count];
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                int number = tag >>> 3;
                if (number <= count && (tag & 7) == WIRETYPE_VARINT) {
                    values[number - 1] = in.readInt32();
                } else {
                    in.skipField(tag);
                }
            }
            return new IntFields(values);
        } catch (IOException e) {
            throw Status.INTERNAL.withDescription("invalid protobuf byte sequence").withCause(e).asRuntimeException();
        }
    }
}
