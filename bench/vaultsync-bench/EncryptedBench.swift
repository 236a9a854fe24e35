import Crypto
import Foundation
import SyncClient
import SyncProtocol
import TestSupport

/// Issue 11's figures, in one run against one in-process server: a new device's first download of
/// the same notes from a plain vault and from an encrypted one (side by side, in rounds), and an
/// encrypted attachment's round trip through the `vaultsync` CLI as its own process, with its peak RSS.
struct EncryptedBench {
    let notes: Int
    let attachmentMiB: Int
    var rounds = 4

    func run(_ server: TestServer) async throws {
        let user = try await server.newUser()
        let body = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 70)
        let passphrase = "a long benchmark passphrase"
        let (plain, _) = try await TestVault.link(user, deviceName: "plain-laptop", vault: "plain", key: .unlock { .passphrase(passphrase) })
        let (sealed, _) = try await TestVault.link(user, deviceName: "sealed-laptop", vault: "sealed", key: .create(passphrase: passphrase))
        defer { plain.remove(); sealed.remove() }
        for vault in [plain, sealed] {
            for i in 0..<notes { try vault.write("notes/\(i / 500)/note-\(i).md", "---\ntitle: Note \(i)\ntags: [bench]\n---\n# Note \(i)\n\n\(body)\n") }
        }
        print("encrypted vaults: \(notes) notes of about \(body.utf8.count / 1000) KB, the same in a plain and an encrypted vault")
        for (name, vault) in [("plain", plain), ("encrypted", sealed)] {
            let t = ContinuousClock.now
            let report = try await vault.sync()
            precondition(report.pushed.count == notes, "\(name): pushed \(report.pushed.count): \(report.failures.prefix(3))")
            print("  first upload, \(name): \(ms(ContinuousClock.now - t)) ms")
        }

        // Rounds alternate which vault goes first, so that a drift of the disk's speed (it varies
        // between runs here) weighs on both; each round's ratio compares two downloads made side
        // by side, and the median of the rounds is the figure.
        // The new devices' folders stay until the end: removing 10,000 files makes the file
        // system's next 10,000 creations slower (ext4 skips recently freed inodes), which would
        // weigh on whichever download came next.
        var phones: [TestVault] = []
        defer { phones.forEach { $0.remove() } }
        var ratios: [Double] = []
        for round in 1...rounds {
            var times: [String: Duration] = [:]
            let order = round.isMultiple(of: 2) ? [("encrypted", "sealed"), ("plain", "plain")] : [("plain", "plain"), ("encrypted", "sealed")]
            for (name, vault) in order {
                let (phone, _) = try await TestVault.link(user, deviceName: "phone-\(name)-\(round)", vault: vault, key: .unlock { .passphrase(passphrase) })
                phones.append(phone)
                sync()
                let t = ContinuousClock.now
                let report = try await phone.sync()
                times[name] = ContinuousClock.now - t
                precondition(report.pulled.count == notes, "\(name): pulled \(report.pulled.count): \(report.failures.prefix(3))")
            }
            let ratio = times["encrypted"]!.seconds / times["plain"]!.seconds
            ratios.append(ratio)
            print(String(format: "  new device's first download, round %d: plain %d ms, encrypted %d ms, ratio %.2f", round, ms(times["plain"]!), ms(times["encrypted"]!), ratio))
        }
        ratios.sort()
        let median = ratios.count.isMultiple(of: 2) ? (ratios[ratios.count / 2 - 1] + ratios[ratios.count / 2]) / 2 : ratios[ratios.count / 2]
        print(String(format: "  first download, median ratio of %d rounds: %.2f (target 1.3 at most; lowest %.2f, highest %.2f)", rounds, median, ratios.first!, ratios.last!))
        try attachment(server, user, passphrase: passphrase)
    }

    /// A random attachment of `attachmentMiB` MiB: sent by `vaultsync sync` from one folder and
    /// received by `vaultsync sync` in another, both separate processes. Both folders are linked
    /// first: linking opens the key with scrypt, whose 128 MiB are its cost by design (measured
    /// and printed on its own).
    func attachment(_ server: TestServer, _ user: TestUser, passphrase: String) throws {
        let cli = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vaultsync").path
        guard FileManager.default.isExecutableFile(atPath: cli) else {
            print("  (attachment round trip skipped: build the vaultsync product next to the benchmark first)")
            return
        }
        let sender = "/tmp/vaultsync-bench-big-\(UUID().uuidString.prefix(6))", receiver = sender + "-received"
        defer { for folder in [sender, receiver] { try? FileManager.default.removeItem(atPath: folder) } }
        let environment = ["VAULTSYNC_PASSWORD=\(user.password)", "VAULTSYNC_PASSPHRASE=\(passphrase)"]
        let link = ["--server", user.server.baseURL.absoluteString, "--email", user.email, "--vault", "attachments"]
        let created = try Measured.run(cli, ["init", sender, "--create", "--encrypt"] + link, environment: environment)
        precondition(created.status == 0, "init --encrypt exited \(created.status)")
        let joined = try Measured.run(cli, ["init", receiver] + link, environment: environment)
        precondition(joined.status == 0, "init exited \(joined.status)")
        print(String(format: "  vaultsync init on an encrypted vault (opens the key: scrypt N=2^17, r=8): %.1f s, peak RSS %d MB", joined.seconds, joined.maxRSSKilobytes / 1024))

        let file = URL(fileURLWithPath: sender).appendingPathComponent("video.bin")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        var hasher = SHA256()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<attachmentMiB {
            let chunk = Data((0..<(1 << 17)).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
            hasher.update(data: chunk)
            try handle.write(contentsOf: chunk)
        }
        try handle.close()
        let sent = hasher.finalize()

        let upload = try Measured.run(cli, ["sync", sender], environment: environment)
        precondition(upload.status == 0, "sync exited \(upload.status)")
        let download = try Measured.run(cli, ["sync", receiver], environment: environment)
        precondition(download.status == 0, "sync exited \(download.status)")
        let received = try FileHashing.hash(fileAt: URL(fileURLWithPath: receiver).appendingPathComponent("video.bin").path)
        precondition(received.hex == sent.map { String(format: "%02x", $0) }.joined(), "the received attachment differs")
        let mib = Double(attachmentMiB)
        print(String(format: "  %d MiB encrypted attachment, vaultsync sync (encrypt, upload in parts): %.1f s (%.0f MiB/s), peak RSS %d MB", attachmentMiB, upload.seconds, mib / upload.seconds, upload.maxRSSKilobytes / 1024))
        print(String(format: "  the same, vaultsync sync on the other folder (download, decrypt): %.1f s (%.0f MiB/s), peak RSS %d MB", download.seconds, mib / download.seconds, download.maxRSSKilobytes / 1024))
    }
}
