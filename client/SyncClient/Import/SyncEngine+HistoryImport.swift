public import Foundation
public import SyncProtocol
import Synchronization

/// What `vaultsync import --from git|syncthing` did.
public struct HistoryImportReport: Sendable, Encodable {
    /// The import's device, as history names it.
    public var device: String
    /// Files that got versions, and the versions written.
    public var files = 0
    public var versions = 0
    /// Versions the vault held already (the import run again).
    public var skipped = 0
    /// Files the server refused, with why (a file another device wrote there, say).
    public var rejected: [FileError] = []
    /// Files of the source not imported, with why (a name no vault holds, a symbolic link).
    public var leftOut: [String: String] = [:]

    enum CodingKeys: String, CodingKey {
        case device, files, versions, skipped, rejected
        case leftOut = "left_out"
    }
}

extension SyncEngine {
    /// Most inline bytes, and most bytes to upload, one import request carries.
    static let importInlineBytes = InlineContent.maxTotalBytes
    static let importHeldBytes = 64 * 1024 * 1024

    /// Imports another system's history (`source`, under `folder` when given) into this folder's
    /// vault: its versions go to the server in order, a batch at a time, each with its original
    /// time and origin, as the versions of a device named for the import; then a sync brings the
    /// files here. Each file's times are made to increase (a later version never older than the
    /// one before, nor than now), so the same source imports the same versions: run again after
    /// a failure, it skips what the vault holds. Plain vaults only.
    public func importHistory(_ source: any HistorySource, under folder: String?) async throws -> (HistoryImportReport, SyncReport) {
        defer { source.close() }
        let prefix = try folder.map { try VaultPath($0.trimmingCharacters(in: CharacterSet(charactersIn: "/"))).rawValue + "/" } ?? ""
        var report = HistoryImportReport(device: source.name)
        for (path, why) in source.leftOut { report.leftOut[path] = why }
        let now = now()
        var newest: [String: Date] = [:]
        var refused: Set<String> = []
        var written: Set<String> = []
        var batch: [ImportVersion] = []
        var uploads: [ContentHash: Data] = [:]
        var inlineBytes: Int64 = 0
        var heldBytes = 0
        let limit = min(preferredBatchSize, serverBatchLimit.withLock { $0 } ?? .max)

        func send() async throws {
            guard !batch.isEmpty else { return }
            let answer = try await importBatch(ImportRequest(source: source.name, versions: batch), uploads: uploads)
            report.versions += answer.imported
            report.skipped += answer.skipped
            report.rejected += answer.rejected
            refused.formUnion(answer.rejected.map(\.path.rawValue))
            written.formUnion(batch.map(\.path.rawValue).filter { !refused.contains($0) })
            (batch, uploads, inlineBytes, heldBytes) = ([], [:], 0, 0)
        }

        while let version = try source.next() {
            let path: VaultPath
            do {
                path = try VaultPath(prefix + version.path)
            } catch {
                report.leftOut[version.path] = "not a name a vault holds: \(error)"
                continue
            }
            // The vault's form of the name (NFC), as the server names a refused path.
            let key = path.rawValue
            guard !refused.contains(key) else { continue }
            // Strictly later than the file's version before (by a millisecond, the wire's grain).
            var time = min(version.time, now)
            if let last = newest[key], time <= last { time = last.addingTimeInterval(0.001) }
            newest[key] = time
            var next = ImportVersion(path: path, contentHash: nil, sizeBytes: 0, createdAt: time, origin: version.origin)
            if let content = version.content {
                next.contentHash = ContentHasher.hash(content)
                next.sizeBytes = Int64(content.count)
                if next.sizeBytes <= InlineContent.maxFileBytes {
                    if inlineBytes + next.sizeBytes > Self.importInlineBytes { try await send() }
                    next.content = content
                    inlineBytes += next.sizeBytes
                } else {
                    if heldBytes + content.count > Self.importHeldBytes { try await send() }
                    uploads[next.contentHash!] = content
                    heldBytes += content.count
                }
            }
            batch.append(next)
            if batch.count >= limit { try await send() }
        }
        try await send()
        report.files = written.count
        let detail = "\(source.name): \(report.versions) versions of \(report.files) files\(folder.map { " under \($0)/" } ?? ""), \(report.skipped) held already, \(report.rejected.count) refused"
        try await store.log(.importHistory, path: folder ?? "", detail: detail, at: self.now())
        return (report, try await sync())
    }

    /// One request, and again once the bytes it asked for are uploaded.
    private func importBatch(_ request: ImportRequest, uploads: [ContentHash: Data]) async throws -> ImportResponse {
        let answer = try await remote.importVersions(request)
        guard !answer.uploads.isEmpty else { return answer }
        for upload in answer.uploads {
            guard let bytes = uploads[upload.contentHash] else { throw HistorySourceError("the server asked for bytes this import did not send: \(upload.contentHash)") }
            try await api.uploadBlob(bytes, to: upload.uploadURL, headers: upload.uploadHeaders ?? [:], session: await session.vaultSession)
        }
        let again = try await remote.importVersions(request)
        guard again.uploads.isEmpty else { throw HistorySourceError("the server still lacks \(again.uploads.count) uploaded files' bytes; run the import again") }
        return again
    }
}
