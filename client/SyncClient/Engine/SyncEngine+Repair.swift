public import Foundation
import SyncCore
public import SyncProtocol

/// What `vaultsync repair` did: the server's damaged blobs this folder held and sent again.
public struct RepairReport: Sendable, Equatable, Encodable {
    /// The server's damaged blobs, as it listed them.
    public var damaged = 0
    /// Paths whose bytes were uploaded, and the blobs the server then found whole.
    public var uploaded: [VaultPath] = []
    public var repaired: [ContentHash] = []
    /// Uploaded, but the server still found them damaged (checked again at the next repair).
    public var stillDamaged: [ContentHash] = []
    /// Damaged blobs no file here has: another device (or a backup) must supply them.
    public var notHeld: [ContentHash] = []
    /// Uploads that failed, with why.
    public var failures: [String: String] = [:]

    /// Whatever this folder could supply arrived whole.
    public var succeeded: Bool { stillDamaged.isEmpty && failures.isEmpty }

    enum CodingKeys: String, CodingKey {
        case damaged, uploaded, repaired, failures, succeeded
        case stillDamaged = "still_damaged"
        case notHeld = "not_held"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(damaged, forKey: .damaged)
        try c.encode(uploaded, forKey: .uploaded)
        try c.encode(repaired, forKey: .repaired)
        try c.encode(stillDamaged, forKey: .stillDamaged)
        try c.encode(notHeld, forKey: .notHeld)
        try c.encode(failures, forKey: .failures)
        try c.encode(succeeded, forKey: .succeeded)
    }
}

/// Why a folder cannot repair its vault.
public enum RepairError: Error, CustomStringConvertible {
    case encryptedVault(String)

    public var description: String {
        switch self {
        case .encryptedVault(let root):
            "\(root) syncs an end-to-end encrypted vault: its stored bytes are ciphertexts this device cannot make again byte for byte, so it cannot repair them"
        }
    }
}

extension SyncEngine {
    /// Heals the server from this folder: asks for the blobs the server found damaged
    /// (`vaultsync-server blobs verify` marks them), uploads each one a file here holds (the
    /// same content hash, so every version naming it is whole again), and has the server check
    /// what arrived. Reads the folder only; changes nothing in it or in the vault's history.
    public func repair() async throws -> RepairReport {
        var report = RepairReport()
        var held: [ContentHash: HeldFile]?
        var after: ContentHash?
        while true {  // a page at a time: its upload URLs are used before they expire
            let page = try await remote.repairList(after: after)
            report.damaged += page.wanted.count
            guard let last = page.wanted.last else { break }
            if held == nil { held = try await heldFiles() }
            var sent: [ContentHash] = []
            for wanted in page.wanted {
                guard let file = held?[wanted.contentHash], file.sizeBytes == wanted.sizeBytes else {
                    report.notHeld.append(wanted.contentHash)
                    continue
                }
                do {
                    try await api.uploadBlob(file: file.path, to: wanted.uploadURL, headers: wanted.uploadHeaders ?? [:], session: await session.vaultSession)
                    report.uploaded.append(file.vaultPath)
                    sent.append(wanted.contentHash)
                } catch {
                    report.failures[file.vaultPath.rawValue] = "\(error)"
                }
            }
            if !sent.isEmpty {
                let answer = try await remote.confirmRepair(sent)
                report.repaired += answer.repaired
                report.stillDamaged += answer.stillDamaged
            }
            guard page.hasMore else { break }
            after = last.contentHash
        }
        guard report.damaged > 0 else { return report }
        let detail = "\(report.repaired.count) of \(report.damaged) damaged blobs repaired, \(report.notHeld.count) not held here"
        try await store.log(.repair, path: "", detail: detail, at: now())
        return report
    }

    /// A file of the folder by its content: where it is on disk and in the vault.
    private struct HeldFile {
        let path: URL
        let vaultPath: VaultPath
        let sizeBytes: Int64
    }

    /// The folder's files by content hash (the scan reuses the stat cache: unchanged files are
    /// not read again).
    private func heldFiles() async throws -> [ContentHash: HeldFile] {
        let scan = try LocalScanner(root: root, ignore: LocalScanner.rules(for: root)).scan(cache: try await store.cachedStats())
        var held: [ContentHash: HeldFile] = [:]
        for (path, file) in scan.files where held[file.hash] == nil {
            held[file.hash] = HeldFile(path: root.appendingPathComponent(scan.diskNames[path] ?? path.rawValue), vaultPath: path, sizeBytes: file.sizeBytes)
        }
        return held
    }
}
