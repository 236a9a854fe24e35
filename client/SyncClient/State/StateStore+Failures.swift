public import Foundation
import GRDB
public import SyncCore
public import SyncProtocol

/// Per-file failures: counted per run, parked after repeated runs, un-parked by `retry`.
extension StateStore {

    /// Counts one more failed run for each path; a path reaching `parkAfter` attempts is parked.
    /// Returns the paths parked by this call.
    @discardableResult
    public func recordFailures(_ errors: [VaultPath: String], at date: Date, parkAfter: Int) async throws -> [VaultPath] {
        let stamp = WireDate.format(date)
        return try await db.write { db in
            var parked: [VaultPath] = []
            for (path, error) in errors.sorted(by: { $0.key < $1.key }) {
                try db.execute(
                    sql: """
                        INSERT INTO failures (relative_path, attempts, last_error, parked, updated_at) VALUES (?, 1, ?, 0, ?)
                        ON CONFLICT(relative_path) DO UPDATE SET attempts = attempts + 1, last_error = excluded.last_error, updated_at = excluded.updated_at
                        """, arguments: [path.rawValue, error, stamp])
                let attempts = try Int.fetchOne(db, sql: "SELECT attempts FROM failures WHERE relative_path = ?", arguments: [path.rawValue]) ?? 0
                if attempts >= parkAfter {
                    try db.execute(sql: "UPDATE failures SET parked = 1 WHERE relative_path = ? AND parked = 0", arguments: [path.rawValue])
                    if db.changesCount > 0 { parked.append(path) }
                }
            }
            return parked
        }
    }

    /// Forgets the failure count of paths that went through.
    public func clearFailures(_ paths: [VaultPath]) async throws {
        guard !paths.isEmpty else { return }
        try await db.write { db in
            for path in paths { try db.run("DELETE FROM failures WHERE relative_path = ?", [path.rawValue]) }
        }
    }

    /// Failing paths, parked or not, by path.
    public func failures() async throws -> [FailureRecord] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT relative_path, attempts, last_error, parked, updated_at FROM failures ORDER BY relative_path").map { row in
                FailureRecord(path: try VaultPath(row[0] as String), attempts: row[1], lastError: row[2], parked: row[3], updatedAt: WireDate.parse(row[4]) ?? .distantPast)
            }
        }
    }

    /// Un-parks `paths` (all parked paths when nil) so the next sync tries them again; returns them.
    public func unpark(_ paths: [VaultPath]?) async throws -> [VaultPath] {
        try await db.write { db in
            let parked = try String.fetchAll(db, sql: "SELECT relative_path FROM failures WHERE parked = 1").compactMap { try? VaultPath($0) }
            let chosen = paths.map { wanted in parked.filter { wanted.contains($0) } } ?? parked
            for path in chosen { try db.run("DELETE FROM failures WHERE relative_path = ?", [path.rawValue]) }
            return chosen
        }
    }
}
