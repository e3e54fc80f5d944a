package rpcarena.worker.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import rpcarena.worker.core.CallFailure;
import rpcarena.worker.core.Connection;

/** One load client on java.net.http.HttpClient, HTTP/1.1: its own keep-alive connection. */
final class HttpConnection implements Connection {
    private final URI uri;
    private final HttpPayloads payloads;
    private final Duration timeout;
    private HttpClient client;

    HttpConnection(URI uri, HttpPayloads payloads, Duration timeout) {
        this.uri = uri;
        this.payloads = payloads;
        this.timeout = timeout;
        this.client = newClient();
    }

    private HttpClient newClient() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
    }

    @Override
    public Object exchange(int slot) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Content-Type", payloads.contentType())
                .POST(HttpRequest.BodyPublishers.ofByteArray(payloads.request(slot)))
                .build();
        HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new CallFailure("status_" + response.statusCode(), "HTTP " + response.statusCode());
        }
        return payloads.reply(response.body());
    }

    @Override
    public boolean verify(int slot, Object reply) {
        return payloads.matches(slot, reply);
    }

    /** A new client, so a new connection (JDK 17's HttpClient has no close: the old one is dropped). */
    @Override
    public void reconnect() {
        client = newClient();
    }

    @Override
    public void close() {
        client = null;
    }
}
