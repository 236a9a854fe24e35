public import Foundation
public import SyncProtocol
import SyncCore

extension SyncEngine {
    /// Exports the whole vault as the server has it: starts the server's export job, polls it
    /// (reporting files written of total), downloads the zip, verifies every entry against the
    /// manifest, and only then moves it to `destination`.
    /// - Returns: the archive's manifest.
    public func export(to destination: URL, progress: SyncProgressHandler? = nil) async throws -> ExportManifest {
        // An encrypted vault's archive is ciphertext: without the key this folder cannot make it
        // plain (and must not hand it over as if it were). The state call says which vault it is.
        let page = try await stateSwitchingNames(limit: 1)
        _ = try await keepUpWithKeys(generation: page.keyGeneration, rotationDue: false, role: page.role)  // versions of a generation made since the last sync
        var status = try await session.run { [api] in try await api.startExport($0) }
        while status.state == .running {
            progress?(SyncProgress(phase: .transferring, filesDone: status.filesDone, filesTotal: status.fileCount ?? 0))
            try await Task.sleep(for: .milliseconds(200))
            let id = status.exportID
            status = try await session.run { [api] in try await api.exportStatus(id, session: $0) }
        }
        guard status.state == .ready, let url = status.downloadURL else {
            throw ExportError.failed(status.error ?? "the server could not write the export")
        }
        let downloaded = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: downloaded) }
        let files = status.fileCount ?? 0, total = status.sizeBytes ?? 0
        let vaultSession = await session.vaultSession
        var report: (@Sendable (Int64) -> Void)?
        if let progress {
            report = { bytes in progress(SyncProgress(phase: .transferring, filesDone: files, filesTotal: files, bytesDone: min(bytes, total), bytesTotal: total)) }
        }
        let api = self.api
        try await Self.reportingGrowth(of: downloaded, every: .milliseconds(200), as: report) {
            try await api.downloadBlob(from: url, into: downloaded, session: vaultSession)
        }
        var manifest = try ExportArchive.verify(downloaded)
        let staged = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        if let cipher = remote.cipher {
            // The server's archive holds ciphertext: the user's is written here, in plaintext,
            // beside the destination (not in `.vaultsync/tmp`, which a sync clears: an export
            // does not take the vault's lock).
            do {
                let written = try ExportArchive.decrypt(downloaded, manifest: manifest, keys: cipher.keys, to: staged, staging: destination.deletingLastPathComponent())
                manifest = try ExportArchive.verify(staged)
                guard manifest == written else { throw ExportArchiveError.invalid("the decrypted archive does not read back as written") }
            } catch {
                try? FileManager.default.removeItem(at: staged)
                throw error
            }
        } else {
            try FileManager.default.moveItem(at: downloaded, to: staged)
        }
        guard rename(staged.path, destination.path) == 0 else {
            try? FileManager.default.removeItem(at: staged)
            throw ExportError.failed("could not write \(destination.path): \(String(cString: strerror(errno)))")
        }
        progress?(SyncProgress(phase: .finished))
        return manifest
    }

    /// Runs `body`, which writes `file` as bytes arrive, and reports the file's size every
    /// `interval` meanwhile and once at the end: the archive's download counts its bytes.
    static func reportingGrowth(of file: URL, every interval: Duration, as report: (@Sendable (Int64) -> Void)?, _ body: @Sendable () async throws -> Void) async throws {
        guard let report else { return try await body() }
        let size: @Sendable () -> Int64 = { (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0 }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    report(size())
                    try await Task.sleep(for: interval)
                }
            }
            defer { group.cancelAll() }
            try await body()
        }
        report(size())
    }

    /// Imports an export archive into this vault, which must be empty here and on the server:
    /// verifies the archive, writes every file (with its modification time), then syncs, so the
    /// server gets exactly the manifest's files.
    /// - Throws: ``ExportError/notEmpty(_:)`` when the folder or the server vault holds files.
    public func importArchive(_ zip: URL, progress: SyncProgressHandler? = nil) async throws -> (ExportManifest, SyncReport) {
        let manifest: ExportManifest
        do {
            let lock = try await lockVault()
            defer { withExtendedLifetime(lock) {} }
            let local = try LocalScanner(root: root, ignore: LocalScanner.rules(for: root)).scan(cache: [:])
            guard local.files.isEmpty else { throw ExportError.notEmpty("the folder \(root.path) already has files") }
            var cursor: String?
            while true {  // tombstones are fine; any live file is not
                let from = cursor
                let (page, undecodable) = try await remote.state(cursor: from, limit: 1000)  // a rekeyed vault is not empty
                guard page.files.isEmpty, undecodable.isEmpty else { throw ExportError.notEmpty("the server's vault already has files") }
                cursor = page.cursor
                if page.hasMore != true { break }
            }
            manifest = try ExportArchive.verify(zip)
            try ExportArchive.extract(zip, manifest: manifest, into: root, staging: stateFolder.appendingPathComponent("tmp"))
        }
        let report = try await sync(progress: progress)
        return (manifest, report)
    }
}

/// Why an export or import did not happen.
public enum ExportError: Error, Equatable, CustomStringConvertible {
    case failed(String)
    case notEmpty(String)

    public var description: String {
        switch self {
        case .failed(let reason): "export failed: \(reason)"
        case .notEmpty(let what): "import needs an empty vault, but \(what): link a new folder to an empty vault"
        }
    }
}
