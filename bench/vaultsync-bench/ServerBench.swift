import SyncServer
import ArgumentParser
import Foundation
import Logging
import Postgres
import SyncClient
import SyncProtocol
import TestSupport

/// Server benchmarks: a push + upload + confirm cycle of many small files, and state calls on a large vault.
/// Run with `swift run -c release vaultsync-bench` (see docs/performance.md).
@main
struct ServerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "vaultsync-bench", abstract: "Measure the sync server on this machine.")

    @Option(help: "Files in the push cycle.") var pushFiles = 10_000
    @Option(help: "Files per push/confirm batch.") var batch = 1000
    @Option(help: "HTTP connections for blob uploads.") var connections = 16
    @Flag(help: "Upload with SyncClient's URLSession transport instead of the benchmark's keep-alive uploader.") var urlsession = false
    @Option(help: "Run the client benchmark with this many notes instead of the server benchmarks (e.g. 10000).") var clientNotes: Int?
    @Option(help: "Files in the large vault for state calls.") var vaultFiles = 100_000
    @Option(help: "Repetitions of the incremental state call.") var repeats = 50
    @Option(help: "Run the change-feed fan-out benchmark with this many WebSockets on a release server child process instead (e.g. 5000).") var fanout: Int?
    @Option(help: "Run this many seeded simulation histories instead (e.g. 10000); exits 1 on the first failure.") var simulate: Int?
    @Option(help: "The simulation's seed (default: from the clock).") var seed: UInt64?
    @Flag(help: "With --simulate: go on past failures and list them (not shrunk).") var keepGoing = false
    @Option(help: "With --simulate: the index of the first history (to resume or split a run).") var start = 0
    @Flag(help: "With --simulate: histories in a vault three people share (an owner's devices, a writer's, a reader's).") var shared = false
    @Flag(help: "With --simulate: the histories in an end-to-end encrypted vault (with --shared, one three people share).") var encrypted = false
    @Option(help: "Run the load generator with this many devices instead (e.g. 200): mixed traffic against release servers on the test harness's Postgres and moto.") var load: Int?
    @Option(help: "With --load: how many users the devices belong to.") var users = 50
    @Option(help: "With --load: how long, in seconds.") var seconds = 60
    @Option(help: "With --load: server instances (more than one: behind HAProxy, on S3).") var instances = 1
    @Flag(help: "With --load and one instance: S3 (moto) instead of the built-in file store.") var s3 = false
    @Option(help: "With --load: send the traffic to this running server instead of starting servers (bench/live-sync.sh times live sync beside it).") var url: String?
    @Option(help: "Encrypt and decrypt a file of this many MiB on disk instead (e.g. 1024): throughput and peak memory.") var cryptoMib: Int?
    @Option(help: "Compare a new device's first download of this many notes from a plain and an encrypted vault instead (e.g. 10000), then send an encrypted attachment through the CLI.") var encryptedNotes: Int?
    @Option(help: "With --encrypted-notes: the attachment's size in MiB.") var attachmentMib = 1024
    @Option(help: "Measure the word merge on edits generated from the paragraphs of the Markdown and text files in this folder instead (repeatable; e.g. docs).") var mergeCorpus: [String] = []
    @Option(help: "With --merge-corpus: how many pairs of edits.") var pairs = 20_000
    @Flag(help: "Time a merge of two 100 KB notes with a hundred paragraphs changed on both sides instead.") var mergeSpeed = false

    func run() async throws {
        print("vaultsync-bench: \(ProcessInfo.processInfo.activeProcessorCount) cores")
        if let fanout { return try await FanoutBench(connections: fanout).run() }
        if !mergeCorpus.isEmpty {
            return try MergeCorpusBench(folders: mergeCorpus.map { URL(fileURLWithPath: $0) }, pairs: pairs, seed: seed ?? UInt64(Date().timeIntervalSince1970 * 1000)).run()
        }
        if mergeSpeed { return MergeSpeedBench(hunks: 100, noteBytes: 100_000, repeats: 21).run() }
        if let cryptoMib { return try CryptoBench(mebibytes: cryptoMib).run() }
        if let load { return try await LoadBench(devices: load, users: users, seconds: seconds, instances: instances, s3: s3, target: url.flatMap(URL.init(string:))).run() }
        if let simulate { return try await SimulationBench(histories: simulate, seed: seed ?? UInt64(Date().timeIntervalSince1970 * 1000), keepGoing: keepGoing, start: start, kind: shared ? (encrypted ? .sharedEncrypted : .shared) : encrypted ? .encrypted : .plain).run() }
        if let encryptedNotes {
            // Files up to 2 GiB: a 1 GiB attachment is a little more once encrypted.
            return try await TestServer.with(configure: { $0.databasePoolSize = 8; $0.maxFileBytes = 2 << 30 }) { server in
                try await EncryptedBench(notes: encryptedNotes, attachmentMiB: attachmentMib).run(server)
            }
        }
        try await TestServer.with(configure: { $0.databasePoolSize = 8 }) { server in
            if let clientNotes {
                try await ClientBench(notes: clientNotes).run(server)
                return
            }

            try await pushCycle(server)
            try await stateCalls(server)
        }
    }

    func pushCycle(_ server: TestServer) async throws {
        let device = try await server.newUser().newDevice("bench")
        let blobAPI = SyncAPI(baseURL: server.baseURL, transport: URLSessionTransport(maxConnectionsPerHost: connections))
        let files: [(VaultPath, Data)] = try (0..<pushFiles).map { i in
            (try VaultPath("notes/\(i / 100)/note-\(i).md"), Data("---\ntags: [bench]\n---\n# Note \(i)\n\n\(String(repeating: "lorem ipsum ", count: 30))\(i)\n".utf8))
        }
        let start = ContinuousClock.now
        var pushTime = Duration.zero, uploadTime = Duration.zero, confirmTime = Duration.zero
        var confirmed = 0
        for chunk in stride(from: 0, to: files.count, by: batch).map({ Array(files[$0..<min($0 + batch, files.count)]) }) {
            var t = ContinuousClock.now
            let push = try await device.api.push(PushRequest(files: chunk.map { PushFile(path: $0.0, contentHash: ContentHasher.hash($0.1), sizeBytes: Int64($0.1.count), baseVersion: nil) }), session: device.session)
            pushTime += ContinuousClock.now - t
            t = ContinuousClock.now
            let bytes = Dictionary(uniqueKeysWithValues: chunk)
            let work = push.uploads.filter(\.uploadRequired)
            if urlsession {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    var next = 0
                    func add() {
                        guard next < work.count else { return }
                        let upload = work[next]
                        next += 1
                        group.addTask { try await blobAPI.uploadBlob(bytes[upload.path]!, to: upload.uploadURL!) }
                    }
                    for _ in 0..<connections { add() }
                    while try await group.next() != nil { add() }
                }
            } else {
                let jobs = work.map { ($0.uploadURL!, bytes[$0.path]!) }
                // Wait on a thread of its own: blocking a cooperative thread would take one of the
                // server's two away.
                let connections = connections
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    Thread {
                        do {
                            try KeepAliveUploader(connections: connections).put(jobs)
                            continuation.resume()
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }.start()
                }
            }
            uploadTime += ContinuousClock.now - t
            t = ContinuousClock.now
            let answer = try await device.api.confirm(ConfirmRequest(confirmed: push.uploads.map { ConfirmItem(path: $0.path, version: $0.newVersion) }), session: device.session)
            confirmTime += ContinuousClock.now - t
            confirmed += answer.confirmed.count
        }
        let total = ContinuousClock.now - start
        precondition(confirmed == files.count, "only \(confirmed) of \(files.count) confirmed")
        print("push cycle: \(files.count) files in batches of \(batch), uploads over \(connections) connections with \(urlsession ? "URLSession (SyncClient transport)" : "the keep-alive uploader")")
        print("  total \(ms(total)) ms -> \(Int(Double(confirmed) / total.seconds)) confirmed versions/s")
        print("  push \(ms(pushTime)) ms, upload \(ms(uploadTime)) ms, confirm \(ms(confirmTime)) ms")
        print("  push+confirm only (database work): \(Int(Double(confirmed) / (pushTime + confirmTime).seconds)) versions/s")
    }

    func stateCalls(_ server: TestServer) async throws {
        let user = try await server.newUser()
        let device = try await user.newDevice("bench")
        // Seed the large vault with one set-based INSERT: the state calls read only file_state.
        let seedStart = ContinuousClock.now
        let pool = PostgresPool(connectionString: server.databaseURL, maxConnections: 1, logger: TestCluster.quietLogger)
        let userID = user.tokens.userID
        let count = vaultFiles
        try await pool.transaction { tx in
            let vault = try tx.query("SELECT id FROM vaults WHERE user_id = $1", [userID]).first!.uuid(0)
            try tx.query(
                """
                INSERT INTO file_state (vault_id, path, path_key, version, content_hash, size_bytes, updated_at, updated_by, is_deleted, change_seq)
                SELECT $1, 'seed/' || (g / 1000) || '/n' || g || '.md', 'seed/' || (g / 1000) || '/n' || g || '.md', 1,
                       'sha256:' || encode(sha256(g::text::bytea), 'hex'), 4000, $2, $3, false, g
                FROM generate_series(1, $4::int) AS g
                """, [vault, Date(), device.session.deviceID, count])
            try tx.query("UPDATE vaults SET change_seq = $2 WHERE id = $1", [vault, count])
            try tx.execute("ANALYZE file_state")
        }
        await pool.close()
        print("large vault: \(count) files seeded in \(ms(ContinuousClock.now - seedStart)) ms")

        var t = ContinuousClock.now
        let full = try await device.allChanges(pageSize: 5000)
        let fullTime = ContinuousClock.now - t
        precondition(full.files.count == count)
        print("  full state, pages of 5000: \(ms(fullTime)) ms for \(full.files.count) files")

        guard var cursor = full.cursor else { throw Missing() }
        var samples: [Double] = []
        for round in 0..<repeats {
            try await device.write((0..<10).map { ("seed/\(round)/n\(round * 1000 + $0 + 1).md", "edit \(round) \($0)", 1) })
            t = ContinuousClock.now
            let page = try await device.api.state(device.session, cursor: cursor)
            samples.append((ContinuousClock.now - t).seconds * 1000)
            precondition(page.files.count == 10, "expected 10 changes, got \(page.files.count)")
            cursor = page.cursor!
        }
        samples.sort()
        print("  incremental state with 10 changes (client-measured round trip over HTTP), \(repeats) runs:")
        print(String(format: "    median %.2f ms, p95 %.2f ms, max %.2f ms", samples[samples.count / 2], samples[Int(Double(samples.count) * 0.95)], samples.last!))
    }
}

struct Missing: Error {}

/// Whole milliseconds, for printing.
func ms(_ d: Duration) -> Int { Int(d.seconds * 1000) }

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
