public import Foundation
import GRDB
public import SyncProtocol

/// The `conflicts` table: paths waiting for the user, held back from syncing until resolved.
extension StateStore {
    /// Records that `path` needs the user; it is held back from syncing until resolved.
    public func recordConflict(_ conflict: ConflictRecord) async throws {
        try await db.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO conflicts (relative_path, remote_version, conflict_copy, description, created_at, server_record, recorded_hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    conflict.path.rawValue, conflict.remoteVersion, conflict.conflictCopy?.rawValue, conflict.description,
                    WireDate.format(conflict.createdAt), conflict.serverRecord?.uuidString, conflict.recordedHash?.rawValue,
                ])
        }
    }

    /// Notes the server's record of the conflict on `path` and the content it holds.
    func setServerRecord(_ id: UUID, hash: ContentHash, for path: VaultPath) async throws {
        try await db.write {
            try $0.execute(sql: "UPDATE conflicts SET server_record = ?, recorded_hash = ? WHERE relative_path = ?", arguments: [id.uuidString, hash.rawValue, path.rawValue])
        }
    }

    /// Open conflicts, by path.
    public func conflicts() async throws -> [ConflictRecord] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT relative_path, remote_version, conflict_copy, description, created_at, server_record, recorded_hash FROM conflicts ORDER BY relative_path").map { row in
                ConflictRecord(
                    path: try VaultPath(row[0] as String), remoteVersion: row[1], conflictCopy: try (row[2] as String?).map { try VaultPath($0) },
                    description: row[3], createdAt: WireDate.parse(row[4]) ?? .distantPast, serverRecord: (row[5] as String?).flatMap(UUID.init(uuidString:)),
                    recordedHash: (row[6] as String?).flatMap { try? ContentHash($0) })
            }
        }
    }

    /// Marks a conflict resolved.
    public func clearConflict(_ path: VaultPath) async throws {
        try await db.write { try $0.execute(sql: "DELETE FROM conflicts WHERE relative_path = ?", arguments: [path.rawValue]) }
    }
}

/// A conflict waiting for the user: the server version it is against, the conflict copy holding
/// that version beside the file, and why it was not merged.
public struct ConflictRecord: Sendable, Equatable {
    public var path: VaultPath
    public var remoteVersion: Int
    public var conflictCopy: VaultPath?
    public var description: String
    public var createdAt: Date
    /// The server's record of this device's version (nil until the server has it).
    public var serverRecord: UUID?
    /// The content the server's record holds.
    public var recordedHash: ContentHash?

    public init(
        path: VaultPath, remoteVersion: Int, conflictCopy: VaultPath?, description: String, createdAt: Date, serverRecord: UUID? = nil,
        recordedHash: ContentHash? = nil
    ) {
        self.path = path
        self.remoteVersion = remoteVersion
        self.conflictCopy = conflictCopy
        self.description = description
        self.createdAt = createdAt
        self.serverRecord = serverRecord
        self.recordedHash = recordedHash
    }
}
