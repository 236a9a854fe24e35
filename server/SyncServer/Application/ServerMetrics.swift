import CoreMetrics
import Metrics
import Foundation
import NIOConcurrencyHelpers
import Prometheus

/// The server's metrics (swift-metrics, exported by swift-prometheus) and their Prometheus text
/// for `GET /metrics`. Each server has a registry of its own, and makes its metrics through that
/// registry's factory rather than the process-wide `MetricsSystem`: several servers run in one
/// test process, and each reports only itself. Names and labels are listed in `docs/deployment.md`.
final class ServerMetrics: Sendable {
    // swift-metrics' types (Prometheus has its own of the same names).
    typealias Counter = CoreMetrics.Counter
    typealias Timer = CoreMetrics.Timer
    typealias Meter = CoreMetrics.Meter
    typealias Gauge = CoreMetrics.Gauge

    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    private let confirmedVersions: Counter
    private let conflicts: Counter
    private let blobBytesIn: Counter
    private let blobBytesOut: Counter
    private let eventConnections: Meter
    private let databaseWaits: Timer
    private let databaseCheckouts: Counter
    private let purgeRuns: Counter
    private let purged: [String: Counter]
    private let verifyFigures: [String: Gauge]
    private let verifyFinished: Gauge
    private let damagedBlobs: Gauge
    private let webdavBlindWrites: [String: Counter]
    private let requests = NIOLockedValueBox<[RequestKey: (count: Counter, duration: Timer)]>([:])

    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Seconds, from 5 ms (a cached state call) to a minute (a large proxied blob).
        factory.defaultDurationHistogramBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60].map { .milliseconds(Int64($0 * 1000)) }
        self.factory = factory
        confirmedVersions = Counter(label: "vaultsync_versions_confirmed_total", factory: factory)
        conflicts = Counter(label: "vaultsync_conflicts_total", factory: factory)
        blobBytesIn = Counter(label: "vaultsync_blob_bytes_received_total", factory: factory)
        blobBytesOut = Counter(label: "vaultsync_blob_bytes_sent_total", factory: factory)
        eventConnections = Meter(label: "vaultsync_event_connections", factory: factory)
        databaseWaits = Timer(label: "vaultsync_database_pool_wait_seconds", factory: factory)
        databaseCheckouts = Counter(label: "vaultsync_database_checkouts_total", factory: factory)
        purgeRuns = Counter(label: "vaultsync_purge_runs_total", factory: factory)
        purged = Dictionary(uniqueKeysWithValues: ["tombstones", "old_versions", "abandoned_uploads", "aborted_uploads", "blobs", "stale_uploads", "orphan_blobs", "orphan_uploads"].map {
            ($0, Counter(label: "vaultsync_purge_removed_total", dimensions: [("kind", $0)], factory: factory))
        })
        verifyFigures = Dictionary(uniqueKeysWithValues: ["checked", "missing", "wrong_size", "corrupt"].map {
            ($0, Gauge(label: "vaultsync_blob_verify_last_run", dimensions: [("figure", $0)], factory: factory))
        })
        verifyFinished = Gauge(label: "vaultsync_blob_verify_finished_timestamp_seconds", factory: factory)
        damagedBlobs = Gauge(label: "vaultsync_blobs_damaged", factory: factory)
        webdavBlindWrites = Dictionary(uniqueKeysWithValues: ["merged", "conflict", "unchanged"].map {
            ($0, Counter(label: "vaultsync_webdav_blind_writes_total", dimensions: [("outcome", $0)], factory: factory))
        })
    }

    /// A WebDAV `PUT` without `If-Match` over an edit its client never saw: `merged`, kept as a
    /// `conflict` record, or `unchanged` (the current version held its change).
    func webdavBlindWrite(_ outcome: String) { webdavBlindWrites[outcome]?.increment() }

    /// Versions made current (confirmed, or committed inline by a push).
    func versionsConfirmed(_ count: Int) { if count > 0 { confirmedVersions.increment(by: count) } }
    /// Conflicts answered to pushes and confirms.
    func conflictsFound(_ count: Int) { if count > 0 { conflicts.increment(by: count) } }
    /// Blob bytes received through this server (uploads and parts on its own URLs).
    func blobBytesReceived(_ count: Int) { blobBytesIn.increment(by: count) }
    /// Blob bytes sent by this server (downloads on its own URLs).
    func blobBytesSent(_ count: Int) { blobBytesOut.increment(by: count) }
    /// An event connection (WebSocket or long poll) opened or closed.
    func eventConnectionOpened() { eventConnections.increment() }
    func eventConnectionClosed() { eventConnections.decrement() }
    /// How long a request waited for a database connection.
    func databaseWaited(_ duration: Duration) { databaseWaits.record(duration: duration) }

    func databaseCheckedOut() { databaseCheckouts.increment() }

    /// One request answered: counted by route pattern (`/vault/uploads/{id}/parts`, never the
    /// concrete path, so ids do not multiply series), method and status, and its duration.
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        let key = RequestKey(route: route, method: method, status: status)
        let metrics = requests.withLockedValue { cache in
            if let found = cache[key] { return found }
            let made = (
                Counter(label: "vaultsync_http_requests_total", dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory),
                Timer(label: "vaultsync_http_request_duration_seconds", dimensions: [("route", route), ("method", method)], factory: factory)
            )
            cache[key] = made
            return made
        }
        metrics.count.increment()
        metrics.duration.record(duration: duration)
    }

    /// A purge run and what it removed.
    func recordPurge(_ report: PurgeReport) {
        guard !report.skipped else { return }
        purgeRuns.increment()
        let removed = [
            "tombstones": report.tombstones, "old_versions": report.oldVersions, "abandoned_uploads": report.abandonedUploads,
            "aborted_uploads": report.abortedUploads, "blobs": report.blobs, "stale_uploads": report.staleUploads,
        ]
        for (kind, count) in removed where count > 0 { purged[kind]?.increment(by: count) }
    }

    /// A garbage collection run of the server's own job: what it removed counts as purged.
    func recordGarbage(_ report: GarbageReport) {
        guard !report.skipped, !report.dryRun else { return }
        if report.orphans > 0 { purged["orphan_blobs"]?.increment(by: report.orphans) }
        if report.uploadsAborted > 0 { purged["orphan_uploads"]?.increment(by: report.uploadsAborted) }
    }

    /// The store's health as the database records it (read at each scrape: `blobs verify` runs
    /// in a process of its own).
    func recordBlobHealth(_ health: BlobHealth) {
        damagedBlobs.record(health.damaged)
        guard let run = health.lastRun else { return }
        let figures = ["checked": run.checked, "missing": run.missing, "wrong_size": run.wrongSize, "corrupt": run.corrupt]
        for (figure, value) in figures { verifyFigures[figure]?.record(value) }
        verifyFinished.record(run.finishedAt.timeIntervalSince1970)
    }

    /// The Prometheus text exposition of every metric.
    func text() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return buffer
    }
}
