package rpcarena.worker.semantics;

/**
 * The arithmetic of the operations of proto/arena.proto as pure functions (src/rpcarena/protocol/semantics.py
 * is the reference; proto/vectors/arena.json pins it). Servers reach them through {@link Operation}.
 */
public final class Semantics {
    /**
     * The cap on GetRandNums' count and on any count a peer announces, the same in every language
     * (MAX_COUNT in src/rpcarena/protocol/semantics.py): at 2^31 values one call would cost 8 GiB.
     */
    public static final int MAX_COUNT = 1_000_000;

    private static final int LCG_MULTIPLIER = 1664525;
    private static final int LCG_INCREMENT = 1013904223;

    private Semantics() {}

    /** Refuses a count over {@link #MAX_COUNT}, before anything is allocated for it. */
    public static void checkCount(String what, long count) {
        if (count > MAX_COUNT) {
            throw new Refused(what + " " + count + " is over the cap of " + MAX_COUNT + ": ask for fewer");
        }
    }

    /**
     * The int32 sum of every value, wrapping as Java's int addition does: a reply computed from every
     * field of LargeData, so a codec that decodes lazily does the work an eager one does.
     */
    public static int checksum(int[] values) {
        int sum = 0;
        for (int v : values) {
            sum += v;
        }
        return sum;
    }

    public static String sayHello(String name) {
        return "Hello " + name;
    }

    /** double(sum as int64) / count, and 0.0 for no values. */
    public static double average(int[] values) {
        if (values.length == 0) {
            return 0.0;
        }
        long sum = 0;
        for (int v : values) {
            sum += v;
        }
        return (double) sum / values.length;
    }

    /**
     * Numerical Recipes' LCG over uint32 (int arithmetic wraps mod 2^32), each state as int32;
     * {@link Refused} over {@link #MAX_COUNT}.
     */
    public static int[] randNums(int count, int seed) {
        checkCount("GetRandNums count", count);
        int[] values = new int[Math.max(0, count)];
        int state = seed;
        for (int i = 0; i < values.length; i++) {
            state = state * LCG_MULTIPLIER + LCG_INCREMENT;
            values[i] = state;
        }
        return values;
    }

    /** Reversed by code points: StringBuilder.reverse keeps surrogate pairs together. */
    public static String invert(String word) {
        return new StringBuilder(word).reverse().toString();
    }

    /** Euclidean distance summed left to right; Java never contracts to FMA. */
    public static double distance(double ax, double ay, double az, double bx, double by, double bz) {
        double dx = ax - bx;
        double dy = ay - by;
        double dz = az - bz;
        return Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
}
