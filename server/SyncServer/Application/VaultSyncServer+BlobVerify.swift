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
    /// recorded. It reads the store and writes only its findings (``RepairQueries``, and a whole
    /// run's figures for `/metrics`): it runs beside a live server without holding anything a sync
    /// waits for, a page at a time (memory does not grow with the store), and `after`
    /// (`vault/hash`, from an earlier report's `lastChecked`) continues where a run stopped.
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
                let found = try await check(page, in: store, deep: deep)
                try await record(found, among: page, deep: deep, pool: pool)
                for (row, kind, size) in found { report.problems.append(try await problem(row, kind, size, pool: pool)) }
                report.checked += page.count
                report.checkedBytes += page.reduce(0) { $0 + $1.sizeBytes }
                report.lastChecked = "\(last.vaultID.uuidString.lowercased())/\(last.hash.dropFirst(ContentHash.prefix.count))"
                progress(report)
            }
            // Named by a version but never recorded: checked the same way (a fresh run only).
            if start == nil {
                let unrecorded = try await pool.withConnection { try BlobVerifyQueries.unrecorded($0, vault: vault, limit: 10_000) }
                let found = try await check(unrecorded, in: store, deep: deep)
                try await record(found, among: unrecorded, deep: deep, pool: pool)
                for (row, kind, size) in found { report.problems.append(try await problem(row, kind, size, pool: pool)) }
                report.checked += unrecorded.count
            }
            if start == nil, vault == nil {  // a whole run: its figures go to /metrics
                let (deep, checked, kinds) = (report.deep, report.checked, report.problems.map(\.kind))
                try await pool.withConnection { try BlobVerifyQueries.recordRun($0, deep: deep, checked: checked, problems: kinds, now: Date()) }
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
        let hashed = await mapBounded(whole, limit: 4) { item in (item.0, try? await store.storedHash(item.1)) }
        for (row, found) in hashed where found?.rawValue != row.hash { problems.append((row, .corrupt, nil)) }
        return problems
    }

    /// Keeps the findings where devices see them (`GET /vault/repair`): a mark for each damaged
    /// blob, and none for those found whole (a check by size leaves a mark that reading set).
    private static func record(
        _ found: [(BlobVerifyQueries.Row, BlobProblem.Kind, Int64?)], among rows: [BlobVerifyQueries.Row], deep: Bool, pool: PostgresPool
    ) async throws {
        let damaged = Set(found.map { "\($0.0.vaultID)/\($0.0.hash)" })
        let whole = Dictionary(grouping: rows.filter { !damaged.contains("\($0.vaultID)/\($0.hash)") }, by: \.vaultID)
        let kinds = deep ? [BlobProblem.Kind.missing, .wrongSize, .corrupt] : [.missing, .wrongSize]
        let now = Date()
        try await pool.transaction { tx in
            for (vault, rows) in whole { try RepairQueries.clear(tx, vaultID: vault, hashes: rows.map(\.hash), kinds: kinds.map(\.rawValue)) }
            for (row, kind, _) in found {
                try RepairQueries.record(tx, vaultID: row.vaultID, hash: row.hash, sizeBytes: row.sizeBytes, kind: kind.rawValue, now: now)
            }
        }
    }

    private static func problem(_ row: BlobVerifyQueries.Row, _ kind: BlobProblem.Kind, _ found: Int64?, pool: PostgresPool) async throws -> BlobProblem {
        let references = try await pool.withConnection { try BlobVerifyQueries.references($0, vaultID: row.vaultID, hash: row.hash) }
        return BlobProblem(
            kind: kind, vaultID: row.vaultID, contentHash: row.hash, expectedBytes: row.sizeBytes, foundBytes: found,
            references: references.map { BlobReference(path: $0.path, version: $0.version, current: $0.current, device: $0.deviceName) })
    }
}
