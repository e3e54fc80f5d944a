package rpcarena.worker.semantics;

/**
 * How one message representation (protobuf-java classes, the generated plain classes) is read
 * and built: the only part of an operation that differs between mechanisms. Readers are named
 * message + field, builders after the message; an echo needs none of them.
 *
 * @param <M> the type through which the mechanism passes its messages
 */
public interface Messages<M> {
    M empty();

    /** VectorPair as {a.x, a.y, a.z, b.x, b.y, b.z}; a missing vector is the origin. */
    double[] vectorPairCoordinates(M request);

    M doubleMsg(double value);

    String helloRequestName(M request);

    M helloReply(String message);

    int[] numbersValues(M request);

    M numbers(int[] values);

    M averageReply(double value);

    int randRequestCount(M request);

    /** The uint32 seed's 32 bits. */
    int randRequestSeed(M request);

    String wordValue(M request);

    M word(String value);

    /** A LargeData message's fields f1..fN in order (a field left out is 0). */
    int[] largeDataValues(M request);

    M int32Msg(int value);
}
