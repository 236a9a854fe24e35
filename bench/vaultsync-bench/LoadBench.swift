import Foundation
import Logging
import Synchronization
import SyncClient
import SyncProtocol
import TestSupport

/// Mixed traffic from many devices against release `vaultsync-server` processes behind HAProxy
/// (``LoadBalancedCluster``: proxied blobs on moto, the test harness's Postgres): each device
/// reads its state by cursor, pushes notes committed inline, uploads and confirms attachments,
/// pulls, deletes, and a share of them hold the change feed open. Every confirmed version is
/// noted; at the end each vault's state must hold exactly the last version each device confirmed
/// of each of its own paths (devices write only their own paths, so nothing may conflict).
struct LoadBench {
    let devices: Int
    let users: Int
    let seconds: Int
    let instances: Int
    /// One instance on S3 (moto) rather than the built-in file store.
    let s3: Bool
    /// A server already running to send the traffic to, instead of starting a cluster.
    let target: URL?

    func run() async throws {
        let fileStore = instances == 1 && !s3
        let cluster = try await target == nil ? LoadBalancedCluster.start(instances: instances, fileStore: fileStore, poolSize: 8) : nil
        defer { cluster?.stop() }
        // Through the balancer also for one instance: blob URLs name it (the public URL), and the
        // figures compare alike.
        // A connection per device, as real devices would hold.
        let api = SyncAPI(baseURL: target ?? cluster!.url, transport: AsyncHTTPTransport(connectionsPerHost: devices))
        if let target {
            print("load: \(devices) devices of \(users) users for \(seconds) s against \(target)")
        } else {
            print("load: \(devices) devices of \(users) users for \(seconds) s against \(instances) instance\(instances == 1 ? "" : "s") behind HAProxy (\(fileStore ? "the built-in file store" : "proxied S3 on moto"), the test harness's Postgres)")
        }
        var sessions: [(user: Int, session: VaultSession)] = []
        for user in 0..<users {
            let tokens = try await api.signup(email: "load-\(user)-\(UUID().uuidString.prefix(6))@example.com", password: "load benchmark password")
            for n in 0..<(devices / users) {
                let device = try await api.registerDevice(RegisterDeviceRequest(deviceName: "d\(n)", platform: "linux"), accessToken: tokens.accessToken)
                sessions.append((user, VaultSession(accessToken: tokens.accessToken, deviceID: device.deviceID)))
            }
        }
        let stats = LoadStats()
        let feed = EventSocket(api: api, logger: Logger(label: "load"))
        // A quarter of the devices listen to the change feed the whole time.
        let listeners = sessions.enumerated().filter { $0.offset % 4 == 0 }.map { session in
            Task { _ = try? await feed.run(session.element.session) { _ in stats.feedEvents.withLock { $0 += 1 } } }
        }
        // bench/live-sync.sh starts its edits on this line (written unbuffered, unlike print's).
        FileHandle.standardOutput.write(Data("load: \(sessions.count) devices signed in, traffic starts\n".utf8))
        let deadline = ContinuousClock.now + .seconds(seconds)
        let started = ContinuousClock.now
        let ledgers = await withTaskGroup(of: (Int, [String: Ledger]).self) { group in
            for (index, device) in sessions.enumerated() {
                group.addTask {
                    var driver = DeviceDriver(index: index, api: api, session: device.session, stats: stats)
                    await driver.run(until: deadline)
                    return (device.user, driver.ledger)
                }
            }
            var all: [(Int, [String: Ledger])] = []
            for await result in group { all.append(result) }
            return all
        }
        let elapsed = ContinuousClock.now - started
        listeners.forEach { $0.cancel() }

        // Nothing lost: every vault holds each device's last confirmed version of its paths.
        var lost: [String] = []
        var byUser: [Int: [String: Ledger]] = [:]
        for (user, ledger) in ledgers { byUser[user, default: [:]].merge(ledger) { a, _ in a } }
        for (user, ledger) in byUser {
            let session = sessions.first { $0.user == user }!.session
            var files: [String: RemoteFile] = [:], deleted = Set<String>()
            var cursor: String?
            repeat {
                let page = try await api.state(session, cursor: cursor)
                for file in page.files { files[file.path.rawValue] = file; deleted.remove(file.path.rawValue) }
                for gone in page.deletedSince { deleted.insert(gone.path.rawValue); files[gone.path.rawValue] = nil }
                cursor = page.cursor
                if page.hasMore != true { break }
            } while true
            for (path, expected) in ledger {
                switch expected {
                case .current(let version, let hash):
                    if files[path]?.version != version || files[path]?.contentHash != hash { lost.append("\(path): expected v\(version), found \(files[path].map { "v\($0.version)" } ?? "nothing")") }
                case .deleted:
                    if files[path] != nil { lost.append("\(path): deleted, still there") }
                }
            }
        }
        let report = stats.report(elapsed: elapsed)
        print(report)
        print("  verified \(byUser.values.map(\.count).reduce(0, +)) paths: \(lost.count) lost versions\(lost.isEmpty ? "" : ": " + lost.prefix(5).joined(separator: "; "))")
        for (index, pid) in (cluster?.serverPIDs ?? []).enumerated() {
            print("  instance \(index + 1): peak RSS (VmHWM) \(vmKiB(pid, "VmHWM") / 1024) MB, now \(vmKiB(pid, "VmRSS") / 1024) MB")
        }
        if !lost.isEmpty || stats.errors.withLock({ $0.values.reduce(0, +) }) > 0 { throw LoadError.failed }
    }

    private func vmKiB(_ pid: Int32, _ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
}

enum LoadError: Error { case failed }

/// What a device knows it confirmed last of one of its paths.
enum Ledger: Sendable {
    case current(version: Int, hash: ContentHash)
    case deleted
}

/// One device's traffic: a weighted choice of operation after another until the deadline.
struct DeviceDriver {
    let index: Int
    let api: SyncAPI
    let session: VaultSession
    let stats: LoadStats
    var ledger: [String: Ledger] = [:]
    var cursor: String?
    var random: SystemRandomNumberGenerator = SystemRandomNumberGenerator()
    var counter = 0

    init(index: Int, api: SyncAPI, session: VaultSession, stats: LoadStats) {
        self.index = index
        self.api = api
        self.session = session
        self.stats = stats
    }

    mutating func run(until deadline: ContinuousClock.Instant) async {
        while ContinuousClock.now < deadline {
            let roll = Int.random(in: 0..<100, using: &random)
            do {
                switch roll {
                case 0..<30: try await readState()
                case 30..<60: try await pushNotes()
                case 60..<72: try await pushAttachment()
                case 72..<90: try await pull()
                default: try await delete()
                }
            } catch {
                stats.error("\(error)")
            }
        }
    }

    private func timed<T>(_ endpoint: String, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        let result = try await body()
        stats.record(endpoint, ContinuousClock.now - start)
        return result
    }

    private func current(_ path: String) -> Int? {
        if case .current(let version, _) = ledger[path] { return version }
        return nil
    }

    mutating func readState() async throws {
        repeat {
            let page = try await timed("GET /vault/state") { try await api.state(session, cursor: cursor) }
            cursor = page.cursor
            if page.hasMore != true { break }
        } while true
    }

    mutating func pushNotes() async throws {
        let count = Int.random(in: 1...3, using: &random)
        var files: [PushFile] = []
        for _ in 0..<count {
            counter += 1
            let path = "d\(index)/note-\(Int.random(in: 0..<20, using: &random)).md"
            guard !files.contains(where: { $0.path.rawValue == path }) else { continue }
            let bytes = Data("# note of device \(index)\n\nedit \(counter)\n".utf8)
            files.append(PushFile(path: try VaultPath(path), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: current(path), content: bytes))
        }
        let answer = try await timed("POST /vault/push (inline)") { try await api.push(PushRequest(files: files, commitInline: true, cursor: cursor), session: session) }
        guard answer.conflicts.isEmpty, answer.rejected.isEmpty, let committed = answer.committed else { throw LoadError.failed }
        for file in committed.confirmed { ledger[file.path.rawValue] = .current(version: file.version, hash: file.contentHash) }
        stats.confirmed(committed.confirmed.count)
        if let moved = committed.cursor { cursor = moved }
    }

    mutating func pushAttachment() async throws {
        counter += 1
        let path = "d\(index)/attachments/a-\(Int.random(in: 0..<5, using: &random)).bin"
        var bytes = Data(count: 80_000)  // above the inline limit: a blob upload
        bytes.withUnsafeMutableBytes { raw in for i in stride(from: 0, to: raw.count, by: 8) { raw.storeBytes(of: UInt64.random(in: 0...UInt64.max), toByteOffset: i, as: UInt64.self) } }
        let file = PushFile(path: try VaultPath(path), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: current(path))
        let push = try await timed("POST /vault/push") { try await api.push(PushRequest(files: [file]), session: session) }
        guard push.conflicts.isEmpty, let upload = push.uploads.first else { throw LoadError.failed }
        if upload.uploadRequired, let url = upload.uploadURL {
            try await timed("PUT blob (proxied)") { try await api.uploadBlob(bytes, to: url, headers: upload.uploadHeaders ?? [:], session: session) }
        }
        let sent = cursor
        let confirm = try await timed("POST /vault/push/confirm") {
            try await api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: upload.path, version: upload.newVersion)], cursor: sent), session: session)
        }
        guard confirm.failed.isEmpty, confirm.conflicts.isEmpty else { throw LoadError.failed }
        for done in confirm.confirmed { ledger[done.path.rawValue] = .current(version: done.version, hash: done.contentHash) }
        stats.confirmed(confirm.confirmed.count)
        if let moved = confirm.cursor { cursor = moved }
    }

    mutating func pull() async throws {
        let mine = ledger.compactMap { path, entry -> VaultPath? in
            if case .current = entry { return try? VaultPath(path) }
            return nil
        }
        guard let path = mine.randomElement(using: &random) else { return try await readState() }
        let answer = try await timed("POST /vault/pull") { try await api.pull(PullRequest(files: [path], inlineMaxBytes: 65_536), session: session) }
        if let download = answer.downloads.first, download.content == nil {
            _ = try await timed("GET blob (proxied)") { try await api.downloadBlob(from: download.downloadURL, session: session) }
        }
    }

    mutating func delete() async throws {
        let mine = ledger.compactMap { path, entry -> (String, Int)? in
            if case .current(let version, _) = entry { return (path, version) }
            return nil
        }
        guard let (path, version) = mine.randomElement(using: &random) else { return try await pushNotes() }
        let answer = try await timed("POST /vault/delete") {
            try await api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath(path), baseVersion: version)]), session: session)
        }
        guard answer.conflicts.isEmpty, answer.deleted.count == 1 else { throw LoadError.failed }
        ledger[path] = .deleted
    }
}

/// Latencies by endpoint, confirmed versions and errors, from every device.
final class LoadStats: Sendable {
    private let latencies = Mutex<[String: [Double]]>([:])
    let errors = Mutex<[String: Int]>([:])
    private let versions = Mutex(0)
    let feedEvents = Mutex(0)

    func record(_ endpoint: String, _ duration: Duration) {
        let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        latencies.withLock { $0[endpoint, default: []].append(ms) }
    }

    func confirmed(_ count: Int) { versions.withLock { $0 += count } }

    func error(_ what: String) { errors.withLock { $0[String(what.prefix(160)), default: 0] += 1 } }

    func report(elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var lines: [String] = []
        let all = latencies.withLock { $0 }
        let requests = all.values.map(\.count).reduce(0, +)
        let errorCount = errors.withLock { $0.values.reduce(0, +) }
        lines.append(String(format: "  %d requests in %.1f s (%.0f/s), %d errors; %d versions confirmed (%.0f/s); %d change-feed events heard",
            requests, seconds, Double(requests) / seconds, errorCount, versions.withLock { $0 }, Double(versions.withLock { $0 }) / seconds, feedEvents.withLock { $0 }))
        for (endpoint, values) in all.sorted(by: { $0.key < $1.key }) {
            let sorted = values.sorted()
            func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
            let name = endpoint.padding(toLength: 28, withPad: " ", startingAt: 0)
            lines.append("  \(name)" + String(format: "%7d   p50 %7.2f ms   p99 %7.2f ms", sorted.count, at(0.5), at(0.99)))
        }
        for (error, count) in errors.withLock({ $0 }).sorted(by: { $0.value > $1.value }).prefix(5) { lines.append("  error ×\(count): \(error)") }
        return lines.joined(separator: "\n")
    }
}
