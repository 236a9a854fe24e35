public import Foundation
public import Logging
import NIOCore
import Postgres
import SyncProtocol

/// What `vaultsync-server blobs verify` found.
public struct BlobVerifyReport: Sendable, Equatable, Encodable {
    /// Blobs checked, and the bytes they should hold.
    public var checked = 0
    public var checkedBytes: Int64 = 0
    /// Whether the bytes were read and hashed (`--deep`), not only their presence and size.
    public var deep = false
    public var problems: [BlobProblem] = []
    /// The last blob checked (`vault/hash`): `--after` continues after it.
    public var lastChecked: String?

    /// Every blob checked is there, whole.
    public var held: Bool { problems.isEmpty }

    public init() {}

    enum CodingKeys: String, CodingKey {
        case checked, deep, problems, held
        case checkedBytes = "checked_bytes"
        case lastChecked = "last_checked"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(checked, forKey: .checked)
        try c.encode(checkedBytes, forKey: .checkedBytes)
        try c.encode(deep, forKey: .deep)
        try c.encode(held, forKey: .held)
        try c.encode(problems, forKey: .problems)
        try c.encodeIfPresent(lastChecked, forKey: .lastChecked)
    }
}

/// A blob whose bytes are not what the database says, with the versions that name it.
public struct BlobProblem: Sendable, Equatable, Encodable {
    public enum Kind: String, Sendable, Encodable {
        /// The store has no such object.
        case missing
        /// The object has another size than recorded.
        case wrongSize = "wrong_size"
        /// The object's bytes hash to something else (found by `--deep`).
        case corrupt
    }

    public var kind: Kind
    public var vaultID: UUID
    public var contentHash: String
    public var expectedBytes: Int64
    public var foundBytes: Int64?
    /// The versions that name it, newest first: which paths a person would miss, and the device
    /// that wrote each (it may still hold the bytes).
    public var references: [BlobReference]

    enum CodingKeys: String, CodingKey {
        case kind, references
        case vaultID = "vault_id"
        case contentHash = "content_hash"
        case expectedBytes = "expected_bytes"
        case foundBytes = "found_bytes"
    }
}

/// A version that names a blob.
public struct BlobReference: Sendable, Equatable, Encodable {
    public var path: String
    public var version: Int
    /// Whether it is the path's current version.
    public var current: Bool
    public var device: String?
}

extension VaultSyncServer {
    /// Blobs checked per page (one store call for their sizes).
    static let verifyPageSize = 500

    /// Checks that the store holds every blob the database records, with the recorded size, and
    /// with `deep` the bytes hashing to their key, then that every blob a version names was
    /// recorded. Reads only: it runs beside a live server without holding anything a sync waits
    /// for, a page at a time (memory does not grow with the store), and `after` (`vault/hash`,
    /// from an earlier report's `lastChecked`) continues where a run stopped.
    public static func verifyBlobs(
        configuration: ServerConfiguration, vault: UUID? = nil, deep: Bool, after: String? = nil, logger: Logger,
        progress: @escaping @Sendable (BlobVerifyReport) -> Void = { _ in }
    ) async throws -> BlobVerifyReport {
        var start: (vault: UUID, hash: String)?
        if let after {
            let parts = after.split(separator: "/", maxSplits: 1)
            guard parts.count == 2, let vault = UUID(uuidString: String(parts[0])), let hash = try? ContentHash(ContentHash.prefix + parts[1]) else {
                throw ConfigurationError.invalid("--after '\(after.prefix(100))' is not VAULT/HASH as a report's last_checked gives it")
            }
            start = (vault, hash.rawValue)
        }
        return try await withDatabaseAndStore(configuration, logger: logger, now: { Date() }) { pool, store in
            var report = BlobVerifyReport()
            report.deep = deep
            var cursor = start
            while true {
                let page = try await pool.withConnection { [cursor] in try BlobVerifyQueries.page($0, vault: vault, after: cursor, limit: verifyPageSize) }
                guard let last = page.last else { break }
                cursor = (last.vaultID, last.hash)
                for (row, kind, found) in try await check(page, in: store, deep: deep) {
                    report.problems.append(try await problem(row, kind, found, pool: pool))
                }
                report.checked += page.count
                report.checkedBytes += page.reduce(0) { $0 + $1.sizeBytes }
                report.lastChecked = "\(last.vaultID.uuidString.lowercased())/\(last.hash.dropFirst(ContentHash.prefix.count))"
                progress(report)
            }
            // Named by a version but never recorded: checked the same way (a fresh run only).
            if start == nil {
                let unrecorded = try await pool.withConnection { try BlobVerifyQueries.unrecorded($0, vault: vault, limit: 10_000) }
                for (row, kind, found) in try await check(unrecorded, in: store, deep: deep) {
                    report.problems.append(try await problem(row, kind, found, pool: pool))
                }
                report.checked += unrecorded.count
            }
            logger.info("blob verification finished", metadata: ["checked": "\(report.checked)", "problems": "\(report.problems.count)", "deep": "\(deep)"])
            return report
        }
    }

    /// The rows of `rows` whose bytes are not right, and what was found.
    private static func check(_ rows: [BlobVerifyQueries.Row], in store: any BlobStore, deep: Bool) async throws -> [(BlobVerifyQueries.Row, BlobProblem.Kind, Int64?)] {
        let keys = try rows.map { BlobKey(vaultID: $0.vaultID, contentHash: try ContentHash($0.hash)) }
        let sizes = try await store.sizes(of: keys)
        var problems: [(BlobVerifyQueries.Row, BlobProblem.Kind, Int64?)] = []
        var whole: [(BlobVerifyQueries.Row, BlobKey)] = []
        for (row, key) in zip(rows, keys) {
            switch sizes[key] {
            case nil: problems.append((row, .missing, nil))
            case let size? where size != row.sizeBytes: problems.append((row, .wrongSize, size))
            case _?: whole.append((row, key))
            }
        }
        guard deep else { return problems }
        let hashed = await mapBounded(whole, limit: 4) { item in (item.0, try? await hash(item.1, in: store)) }
        for (row, found) in hashed where found?.rawValue != row.hash { problems.append((row, .corrupt, nil)) }
        return problems
    }

    /// The hash of a stored blob, read as a stream.
    private static func hash(_ key: BlobKey, in store: any BlobStore) async throws -> ContentHash {
        var hasher = ContentHasher()
        for try await chunk in try await store.read(key).chunks {
            chunk.withUnsafeReadableBytes { hasher.update($0) }
        }
        return hasher.finalize()
    }

    private static func problem(_ row: BlobVerifyQueries.Row, _ kind: BlobProblem.Kind, _ found: Int64?, pool: PostgresPool) async throws -> BlobProblem {
        let references = try await pool.withConnection { try BlobVerifyQueries.references($0, vaultID: row.vaultID, hash: row.hash) }
        return BlobProblem(
            kind: kind, vaultID: row.vaultID, contentHash: row.hash, expectedBytes: row.sizeBytes, foundBytes: found,
            references: references.map { BlobReference(path: $0.path, version: $0.version, current: $0.current, device: $0.deviceName) })
    }
}
