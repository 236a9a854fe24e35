import Foundation
import SyncClient
import TestSupport

/// Client benchmarks: first upload, a new device's first download, a no-op sync and a sync after
/// 10 edits, on a vault of `notes` notes of about 4 KB, through the real engine and an in-process server.
struct ClientBench {
    let notes: Int

    func run(_ server: TestServer) async throws {
        let user = try await server.newUser()
        let laptop = try await TestVault.link(user, deviceName: "laptop")
        defer { laptop.remove() }
        let body = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 70)
        for i in 0..<notes {
            try laptop.write("notes/\(i / 500)/note-\(i).md", "---\ntitle: Note \(i)\ntags: [bench]\n---\n# Note \(i)\n\n\(body)\n")
        }
        let bytes = notes * (body.utf8.count + 60)
        print("client: \(notes) notes, about \(bytes / 1_000_000) MB")

        var t = ContinuousClock.now
        let first = try await laptop.sync()
        precondition(first.pushed.count == notes, "pushed \(first.pushed.count): \(first.failures.prefix(3))")
        print("  first upload: \(ms(ContinuousClock.now - t)) ms")

        // Baseline for the download: copying and hashing the same files locally.
        let copy = URL(fileURLWithPath: "/tmp/vaultsync-bench-copy-\(UUID().uuidString.prefix(6))")
        defer { try? FileManager.default.removeItem(at: copy) }
        sync()  // both timings start with nothing left to write back from the upload
        t = ContinuousClock.now
        try FileManager.default.copyItem(at: laptop.root.appendingPathComponent("notes"), to: copy)
        let enumerator = FileManager.default.enumerator(atPath: copy.path)
        while let name = enumerator?.nextObject() as? String {
            if name.hasSuffix(".md") { _ = try FileHashing.hash(fileAt: copy.appendingPathComponent(name).path) }
        }
        let baseline = ContinuousClock.now - t

        let phone = try await TestVault.link(user, deviceName: "phone")
        defer { phone.remove() }
        sync()
        t = ContinuousClock.now
        let download = try await phone.sync()
        let downloadTime = ContinuousClock.now - t
        precondition(download.pulled.count == notes, "pulled \(download.pulled.count)")
        print("  new device's first download: \(ms(downloadTime)) ms (copying and hashing locally: \(ms(baseline)) ms, ratio \(String(format: "%.1f", downloadTime.seconds / baseline.seconds)))")

        var noop: [Double] = []
        for _ in 0..<5 {
            t = ContinuousClock.now
            let report = try await laptop.sync()
            precondition(report.pushed.isEmpty && report.pulled.isEmpty)
            noop.append((ContinuousClock.now - t).seconds * 1000)
        }
        noop.sort()
        // Where a no-op sync's time goes: the scan alone, with a warm stat cache.
        let scanner = LocalScanner(root: laptop.root, ignore: LocalScanner.rules(for: laptop.root))
        let warm = try scanner.scan(cache: [:]).statCache
        t = ContinuousClock.now
        let rescan = try scanner.scan(cache: warm)
        precondition(rescan.rehashed.isEmpty)
        print("  of which the scan (warm stat cache): \(ms(ContinuousClock.now - t)) ms")
        print(String(format: "  no-op sync: median %.0f ms (min %.0f, max %.0f, 5 runs)", noop[2], noop[0], noop[4]))

        for i in 0..<10 { try laptop.write("notes/0/note-\(i).md", "edited \(i)\n") }
        t = ContinuousClock.now
        let edits = try await laptop.sync()
        precondition(edits.pushed.count == 10)
        print("  sync after 10 edits: \(ms(ContinuousClock.now - t)) ms")
        t = ContinuousClock.now
        let receive = try await phone.sync()
        precondition(receive.pulled.count == 10)
        print("  the other device receiving them: \(ms(ContinuousClock.now - t)) ms")
        print("  peak memory of the benchmark process (client and server together): \(peakRSSMegabytes()) MB")

        // The client alone: the vaultsync CLI as its own process, linking a third folder (a full
        // first download), then a no-op sync; peak RSS from the kernel's accounting of the child.
        let cli = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vaultsync").path
        guard FileManager.default.isExecutableFile(atPath: cli) else {
            print("  (client-only memory skipped: build the vaultsync product next to the benchmark first)")
            return
        }
        let third = "/tmp/vaultsync-bench-cli-\(UUID().uuidString.prefix(6))"
        defer { try? FileManager.default.removeItem(atPath: third) }
        let environment = ["VAULTSYNC_PASSWORD=\(user.password)"]
        let link = try Measured.run(cli, ["init", third, "--server", server.baseURL.absoluteString, "--email", user.email, "--device-name", "cli"], environment: environment)
        precondition(link.status == 0, "vaultsync init exited \(link.status)")
        print(String(format: "  vaultsync CLI, first download (init): %.1f s, peak RSS %d MB", link.seconds, link.maxRSSKilobytes / 1024))
        let again = try Measured.run(cli, ["sync", third], environment: environment)
        precondition(again.status == 0, "vaultsync sync exited \(again.status)")
        print(String(format: "  vaultsync CLI, no-op sync: %.2f s, peak RSS %d MB", again.seconds, again.maxRSSKilobytes / 1024))
    }

    func peakRSSMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kb = Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "")
        else { return -1 }
        return kb / 1024
    }
}
