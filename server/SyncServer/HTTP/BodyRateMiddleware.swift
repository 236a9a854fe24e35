import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Ends a request whose body comes slower than ``minimumRate`` bytes a second on average, counted
/// over the time the server waited for it once that passed ``grace``: a body trickled a byte at a
/// time kept its connection open forever, each byte inside the idle timeout. Time the server
/// spends on what it read does not count, so a slow write on the server's side never trips it.
/// A body its handler did not read (a request refused before its body) is read here, under the
/// same rule, rather than after the answer where nothing bounded it. A tripped request is answered
/// `408 request_timeout` and its connection closed, whatever door it came through (WebDAV answers
/// its own errors, so the middleware says so itself).
struct BodyRateMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    /// Bytes a second a body must average (0: no minimum).
    let minimumRate: Int
    let grace: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard minimumRate > 0, Self.declaresBody(request) else { return try await next(request, context) }
        let watch = BodyWatch(minimumRate: minimumRate, grace: grace)
        var request = request
        request.body = RequestBody(asyncSequence: WatchedBody(base: request.body, watch: watch))
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            await Self.drainUnread(request.body, watch)
            if watch.tripped { return Self.tooSlow(watch, context) }
            throw error
        }
        await Self.drainUnread(request.body, watch)
        return watch.tripped ? Self.tooSlow(watch, context) : response
    }

    /// Whether the request says a body follows.
    static func declaresBody(_ request: Request) -> Bool {
        request.headers[.transferEncoding] != nil || (request.headers[.contentLength].flatMap(Int64.init) ?? 0) > 0
    }

    /// Reads a body nobody read, through the watch (a body read in part is left to the server).
    private static func drainUnread(_ body: RequestBody, _ watch: BodyWatch) async {
        guard !watch.iterated else { return }
        do {
            for try await _ in body {}
        } catch {}
    }

    /// The `408`; the connection is closed a moment later, once the answer is written: the rest
    /// of the body is not waited for (the server would read it before closing).
    private static func tooSlow(_ watch: BodyWatch, _ context: Context) -> Response {
        let channel = context.channel
        channel.eventLoop.scheduleTask(in: .milliseconds(500)) { channel.close(promise: nil) }
        var response = ServiceError.bodyTooSlow("the request's body came slower than \(watch.minimumRate) bytes a second: send it again on a better connection").response()
        response.headers[.connection] = "close"
        return response
    }
}

/// What a request's body did so far: bytes, and time spent waiting for them.
final class BodyWatch: Sendable {
    let minimumRate: Int
    let grace: Duration
    private let state = Mutex<(bytes: Int64, waited: Duration, tripped: Bool, iterated: Bool)>((0, .zero, false, false))

    init(minimumRate: Int, grace: Duration) {
        self.minimumRate = minimumRate
        self.grace = grace
    }

    var tripped: Bool { state.withLock { $0.tripped } }
    /// Whether anyone began reading the body.
    var iterated: Bool { state.withLock { $0.iterated } }

    func began() { state.withLock { $0.iterated = true } }

    /// Adds a chunk that took `waited`; false (and tripped) when the body is now too slow.
    func add(_ bytes: Int, waited: Duration) -> Bool {
        state.withLock { state in
            state.bytes += Int64(bytes)
            state.waited += waited
            let seconds = Double(state.waited.components.seconds) + Double(state.waited.components.attoseconds) / 1e18
            if state.waited > grace, Double(state.bytes) < Double(minimumRate) * seconds { state.tripped = true }
            return !state.tripped
        }
    }
}

/// A request body read through a ``BodyWatch``.
struct WatchedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let watch: BodyWatch

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let watch: BodyWatch

        mutating func next() async throws -> ByteBuffer? {
            let started = ContinuousClock.now
            let chunk = try await base.next()
            guard watch.add(chunk?.readableBytes ?? 0, waited: ContinuousClock.now - started) else {
                throw ServiceError.bodyTooSlow("the request's body came slower than \(watch.minimumRate) bytes a second")
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        watch.began()
        return AsyncIterator(base: base.makeAsyncIterator(), watch: watch)
    }
}
