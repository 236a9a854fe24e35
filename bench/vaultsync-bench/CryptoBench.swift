import Foundation
import SyncClient
import SyncProtocol
import VaultCrypto

/// `--crypto-mib N`: encrypts an N MiB file on disk with `EncryptedFiles` and decrypts it again,
/// in this process, and reports each direction's throughput and the process's peak resident memory
/// (`VmHWM`): streaming keeps it flat whatever the file's size. Also times one scrypt derivation at
/// the cost new envelopes use.
struct CryptoBench {
    let mebibytes: Int

    func run() throws {
        let folder = URL(fileURLWithPath: "/tmp/vaultsync-cryptobench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("plain"), sealed = folder.appendingPathComponent("sealed"), opened = folder.appendingPathComponent("opened")
        // Random-looking bytes, written a mebibyte at a time.
        FileManager.default.createFile(atPath: plain.path, contents: nil)
        let handle = try FileHandle(forWritingTo: plain)
        var generator = SystemRandomNumberGenerator()
        let block = Data((0..<(1 << 20)).map { _ in generator.next() as UInt8 })
        for _ in 0..<mebibytes { try handle.write(contentsOf: block) }
        try handle.close()
        print("crypto bench: \(mebibytes) MiB file; peak RSS before: \(peakMiB()) MiB")

        let key = VaultKey.generate()
        var start = ContinuousClock.now
        let forms = try EncryptedFiles.encrypt(plain, to: sealed, key: key)
        let encryptTime = ContinuousClock.now - start
        start = ContinuousClock.now
        let back = try EncryptedFiles.decrypt(sealed, to: opened, key: key)
        let decryptTime = ContinuousClock.now - start
        guard back.hash == forms.plaintextHash else { throw CocoaError(.fileReadCorruptFile) }
        func rate(_ duration: Duration) -> String {
            String(format: "%.0f MiB/s", Double(mebibytes) / (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18))
        }
        print("  encrypt (with both hashes): \(rate(encryptTime)), \(forms.ciphertextSize - forms.plaintextSize) bytes of overhead")
        print("  decrypt (with the hash):    \(rate(decryptTime))")
        print("  peak RSS (VmHWM): \(peakMiB()) MiB")

        start = ContinuousClock.now
        _ = try KeyEnvelope.create(passphrase: "a passphrase of the benchmark")
        print("  envelope creation (one scrypt at N=2^17, r=8, p=1): \(ContinuousClock.now - start)")
    }

    private func peakMiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
}
