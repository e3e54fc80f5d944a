package rpcarena.worker.semantics;

import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The table: what the server does for each rpc of proto/arena.proto, one row per operation,
 * written once for every mechanism ({@link Messages} adapts it to a message representation).
 * src/rpcarena/protocol/semantics.py is the reference; proto/vectors/arena.json pins it.
 */
public enum Operation {
    /** Every Echo* rpc (the contract: it returns its argument unchanged). */
    ECHO {
        @Override
        public <M> M apply(Messages<M> m, M request) {
            return request;
        }
    },
    VOID("Void") {
        @Override
        public <M> M apply(Messages<M> m, M request) {
            return m.empty();
        }
    },
    DISTANCE("Distance") {
        @Override
        public <M> M apply(Messages<M> m, M request) {
            double[] c = m.vectorPairCoordinates(request);
            return m.doubleMsg(Semantics.distance(c[0], c[1], c[2], c[3], c[4], c[5]));
        }
    },
    SAY_HELLO("SayHello") {
        @Override
        public <M> M apply(Messages<M> m, M request) {
            return m.helloReply(Semantics.sayHello(m.helloRequestName(request)));
        }
    },
    AVERAGE("Average") {
        @Override
        public <M> M apply(Messages<M> m, M request) {
            return m.averageReply(Semantics.average(m.numbersValues(request)));
        }
    },
    GET_RAND_NUMS("GetRandNums") {
        @Override
        public <M> M apply(Messages<M> m, M request) {
            return m.numbers(Semantics.randNums(m.randRequestCount(request), m.randRequestSeed(request)));
        }
    },
    /** ChecksumLargeData*: the int32 sum of every field, so every field is decoded and read. */
    CHECKSUM("ChecksumLargeData128", "ChecksumLargeData8192") {
        @Override
        public <M> M apply(Messages<M> m, M request) {
            return m.int32Msg(Semantics.checksum(m.largeDataValues(request)));
        }
    },
    /** InvertStream applies it to each Word of the stream; the stream itself is the transport's. */
    INVERT("Invert", "InvertStream") {
        @Override
        public <M> M apply(Messages<M> m, M request) {
            return m.word(Semantics.invert(m.wordValue(request)));
        }
    };

    private static final String ECHO_PREFIX = "Echo";

    private final List<String> rpcs;

    Operation(String... rpcs) {
        this.rpcs = List.of(rpcs);
    }

    /**
     * The reply of this operation to {@code request}, built with {@code m}; {@link Refused} when
     * the operation will not run it (a count over the cap).
     */
    public abstract <M> M apply(Messages<M> m, M request);

    /** This operation on one representation, for a server to look up once per rpc. */
    public <M> UnaryOperator<M> on(Messages<M> m) {
        return request -> apply(m, request);
    }

    /** The row of an rpc; servers call it when they start, so a missing row stops them at once. */
    public static Operation of(String rpc) {
        if (rpc.startsWith(ECHO_PREFIX)) {
            return ECHO;
        }
        for (Operation op : values()) {
            if (op.rpcs.contains(rpc)) {
                return op;
            }
        }
        throw new IllegalArgumentException("rpc " + rpc + " has no row in rpcarena.worker.semantics.Operation:"
                + " add one (src/rpcarena/protocol/semantics.py says what it does)");
    }
}
