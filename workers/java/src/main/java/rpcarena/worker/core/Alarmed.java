package rpcarena.worker.core;

/**
 * Open loop: the schedule's calls, each taken by whichever client is free, which then waits for it
 * on its own {@link Alarm}.
 */
final class Alarmed implements Plan {
    private final Plan schedule;
    private final Alarm[] alarms;

    Alarmed(Plan schedule, int clients) {
        this.schedule = schedule;
        this.alarms = new Alarm[clients];
        for (int i = 0; i < clients; i++) {
            alarms[i] = new Alarm();  // each used by its own client's thread only
        }
    }

    @Override
    public long next(int client) {
        long at = schedule.next(client);
        if (at != DONE) {
            alarms[client].waitUntil(at);
        }
        return at;
    }

    @Override
    public int stage(long dueNs) {
        return schedule.stage(dueNs);
    }
}
