public import Foundation
import GRDB
public import SyncCore
public import SyncProtocol

/// The sync log (`vaultsync log`): what each sync did, newest last.
extension StateStore {

    /// Appends to the sync log.
    public func log(_ event: SyncLogEvent, path: String, detail: String? = nil, at date: Date) async throws {
        try await db.write { db in
            try db.execute(
                sql: "INSERT INTO sync_log (timestamp, event_type, relative_path, detail) VALUES (?, ?, ?, ?)",
                arguments: [WireDate.format(date), event.rawValue, path, detail])
        }
    }

    static func insert(_ lines: [LogLine], stamp: String, _ db: Database) throws {
        for line in lines {
            try db.run("INSERT INTO sync_log (timestamp, event_type, relative_path, detail) VALUES (?, ?, ?, ?)", [stamp, line.event.rawValue, line.path, line.detail])
        }
    }

    /// The newest `limit` log entries, newest first.
    public func recentLog(limit: Int = 100) async throws -> [SyncLogEntry] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT timestamp, event_type, relative_path, detail FROM sync_log ORDER BY id DESC LIMIT ?", arguments: [limit]).map { row in
                SyncLogEntry(timestamp: WireDate.parse(row[0]) ?? .distantPast, event: SyncLogEvent(rawValue: row[1]), path: row[2], detail: row[3])
            }
        }
    }
}
