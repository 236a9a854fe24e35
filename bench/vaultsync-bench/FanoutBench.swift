import Foundation
import Logging
import Synchronization
import SyncClient
import SyncProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Change-feed fan-out: a release `vaultsync-server serve` (a child process on its embedded
/// default) holds `connections` event WebSockets of one vault (opened here with the client's own
/// `EventSocket`); one confirm by another device must reach all of them. Reports the server's
/// memory per connection and the delivery latency, from just before the push to each receipt.
struct FanoutBench {
    let connections: Int

    func run() async throws {
        raiseDescriptorLimit()
        let data = URL(fileURLWithPath: "/tmp/vaultsync-fanout-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: data) }
        let (server, baseURL) = try startServer(data)
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        let api = SyncAPI(baseURL: baseURL)
        let tokens = try await api.signup(email: "fanout@example.com", password: "fan-out benchmark password")
        let author = try await api.registerDevice(RegisterDeviceRequest(deviceName: "author", platform: "linux"), accessToken: tokens.accessToken)
        var listeners: [VaultSession] = []
        for n in 0..<max(1, connections / 100) {
            let device = try await api.registerDevice(RegisterDeviceRequest(deviceName: "listener-\(n)", platform: "linux"), accessToken: tokens.accessToken)
            listeners.append(VaultSession(accessToken: tokens.accessToken, deviceID: device.deviceID))
        }
        let before = rssKiB(server.processIdentifier)

        let tally = Tally()
        let socket = EventSocket(api: api, logger: Logger(label: "fanout"))
        let sessions = listeners
        let tasks = (0..<connections).map { n in
            Task {
                _ = try? await socket.run(sessions[n % sessions.count]) { event in
                    switch event.type {
                    case .ready: tally.ready.withLock { $0 += 1 }
                    case .changed: tally.received.withLock { $0.append(.now) }
                    default: break
                    }
                }
            }
        }
        defer { tasks.forEach { $0.cancel() } }
        let opening = ContinuousClock.now
        while tally.ready.withLock({ $0 }) < connections {
            guard ContinuousClock.now - opening < .seconds(300) else { throw FanoutError.notConnected(tally.ready.withLock { $0 }) }
            try await Task.sleep(for: .milliseconds(100))
        }
        print("fan-out: \(connections) connections open in \(ms(ContinuousClock.now - opening)) ms")
        try await Task.sleep(for: .seconds(2))  // settle before measuring memory
        let after = rssKiB(server.processIdentifier)
        print("  server RSS \(before / 1024) MB before, \(after / 1024) MB with the connections: \(String(format: "%.1f", Double(after - before) / Double(connections))) KiB per connection")

        let session = VaultSession(accessToken: tokens.accessToken, deviceID: author.deviceID)
        let bytes = Data("# one change for everyone\n".utf8)
        let start = ContinuousClock.now
        let push = try await api.push(PushRequest(files: [PushFile(path: try VaultPath("fanout.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil)]), session: session)
        for upload in push.uploads where upload.uploadRequired { try await api.uploadBlob(bytes, to: upload.uploadURL!, headers: upload.uploadHeaders ?? [:], session: session) }
        _ = try await api.confirm(ConfirmRequest(confirmed: push.uploads.map { ConfirmItem(path: $0.path, version: $0.newVersion) }), session: session)
        let confirmed = ContinuousClock.now
        while tally.received.withLock({ $0.count }) < connections, ContinuousClock.now - confirmed < .seconds(30) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let latencies = tally.received.withLock { $0 }.map { ($0 - start).seconds }.sorted()
        guard !latencies.isEmpty else { throw FanoutError.nothingReceived }
        func percentile(_ p: Double) -> String { String(format: "%.3f", latencies[min(latencies.count - 1, Int((p * Double(latencies.count - 1)).rounded()))]) }
        print("  one confirm (push + upload + confirm took \(ms(confirmed - start)) ms) reached \(latencies.count) of \(connections): p50 \(percentile(0.5)) s, p99 \(percentile(0.99)) s, max \(percentile(1)) s after the push started")
    }

    private func startServer(_ data: URL) throws -> (Process, URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vaultsync-server")
        process.arguments = ["serve", "--data-dir", data.path, "--port", "0", "--log-level", "info"]
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let log = data.appendingPathComponent("server.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        for _ in 0..<1200 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("vaultsync server listening") }),
                let range = line.range(of: #"port=\d+"#, options: .regularExpression), let port = Int(line[range].dropFirst(5)) {
                return (process, URL(string: "http://127.0.0.1:\(port)")!)
            }
            guard process.isRunning else { throw FanoutError.serverDidNotStart(text) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw FanoutError.serverDidNotStart("no 'listening' line")
    }

    /// Two descriptors per connection in this machine's processes (client and server ends): the
    /// benchmark raises its own soft limit (the server inherits it), not the user's system.
    private func raiseDescriptorLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        print("fan-out: descriptor limit \(limit.rlim_cur)")
    }

    private func rssKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
}

/// What the connections saw, from any thread.
final class Tally: Sendable {
    let ready = Mutex(0)
    let received = Mutex<[ContinuousClock.Instant]>([])
}

enum FanoutError: Error {
    case serverDidNotStart(String)
    case notConnected(Int)
    case nothingReceived
}
