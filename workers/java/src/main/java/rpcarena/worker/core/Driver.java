package rpcarena.worker.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.function.DoubleConsumer;

/** The contract's drive: clients, warm-up, barrier, measured phase, one Result. */
public final class Driver {
    private final Spec spec;
    private final Workload workload;
    private final DoubleConsumer handshake;
    private final long[] jitOf;
    private Warmup warmup;
    private volatile Plan plan;
    private volatile long startNs;
    private volatile CpuTimes cpuAtStart;
    /** The spec's connections, shared by the clients; null: each client its own. */
    private Sharing sharing;

    /**
     * {@code handshake} runs once every client has warmed up, before the barrier opens; it is
     * given how long the warm-up took (a JIT's may outlast the spec's, see {@link Warmup}).
     */
    public Driver(Spec spec, Workload workload, DoubleConsumer handshake) {
        this(spec, workload, handshake, new long[0]);
    }

    /** {@code jitOf}: the pids of other JVMs (a server) whose JIT the warm-up also waits for ({@link Warmup}). */
    public Driver(Spec spec, Workload workload, DoubleConsumer handshake, long[] jitOf) {
        this.spec = spec;
        this.workload = workload;
        this.handshake = handshake;
        this.jitOf = jitOf.clone();
    }

    public Result run() throws InterruptedException {
        Reservoir reservoir = new Reservoir(spec.sampleLimit());
        CyclicBarrier barrier = new CyclicBarrier(spec.clients(), this::release);
        List<ClientRun> runs = new ArrayList<>();
        List<Connection> connections = new ArrayList<>();
        sharing = spec.connections() == null ? null : new Sharing(workload, spec.connections());
        for (int i = 0; i < spec.clients(); i++) {
            connections.add(sharing == null ? workload.open(i) : sharing.open(i));
        }
        warmup = new Warmup(spec.warmupS(), spec.warmupMaxS(), jitOf);  // from the first warm-up call
        for (int i = 0; i < spec.clients(); i++) {
            runs.add(new ClientRun(i, connections.get(i), workload.slots(), warmup, barrier, () -> plan, reservoir,
                    spec.stages().size(), spec.intervalS()));
        }
        try {
            runAll(runs);
        } finally {
            connections.forEach(Connection::close);
            if (sharing != null) {
                sharing.close();
            }
        }
        for (ClientRun r : runs) {
            if (r.crash != null) {
                throw new IllegalStateException("a load client crashed (a bug in this worker)", r.crash);
            }
        }
        return result(runs, reservoir);
    }

    /** The barrier action: runs in the last client to arrive, before any client goes on. */
    private void release() {
        System.err.println("rpcarena: " + warmup.describe());  // every client's warm-up is over
        handshake.accept(warmup.seconds());
        if (sharing != null) {
            sharing.reset();  // every client waits at the barrier: none is in flight
        }
        cpuAtStart = CpuTimes.now();
        startNs = System.nanoTime();
        long shift = spec.scheduleOffsetNs();  // this driver's calls interleave with other drivers' of the cell
        plan = spec.ratePerS() == null
                ? new Plan.Quota(spec.clients(), spec.calls(), deadlineNs())
                : new Alarmed(new Plan.Schedule(pacer(), startNs + shift, spec.calls(),
                        durationNs() == null ? null : durationNs() - shift, spec.stages()), spec.clients());
    }

    private Pacer pacer() {
        return spec.stages().isEmpty() ? Pacer.of(spec.arrival(), spec.ratePerS())
                : Pacer.staged(spec.arrival(), spec.stages());
    }

    private long deadlineNs() {
        return spec.durationS() == null ? Long.MAX_VALUE : startNs + durationNs();
    }

    private Long durationNs() {
        return spec.durationS() == null ? null : (long) (spec.durationS() * 1e9);
    }

    private static void runAll(List<ClientRun> runs) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            threads.add(new Thread(runs.get(i), "client-" + i));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
    }

    private Result result(List<ClientRun> runs, Reservoir reservoir) {
        CpuTimes cpu = CpuTimes.now().minus(cpuAtStart);
        Tally total = new Tally(spec.intervalS());
        List<Tally> stages = new ArrayList<>();
        spec.stages().forEach(s -> stages.add(new Tally()));
        long endNs = startNs;
        for (ClientRun r : runs) {
            total.add(r.tally);
            for (int k = 0; k < stages.size(); k++) {
                stages.get(k).add(r.staged[k]);
            }
            endNs = Math.max(endNs, r.endNs);
        }
        Result.Shared shared = sharing == null ? null
                : new Result.Shared(sharing.connections(), sharing.gauge.max(), sharing.gauge.mean(), sharing.waits);
        return new Result(total, (endNs - startNs) / 1e9, cpu, reservoir.samples(), spec.ratePerS() != null, stages, shared);
    }
}
