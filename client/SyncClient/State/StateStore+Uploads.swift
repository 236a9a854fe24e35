import Foundation
import GRDB
public import SyncProtocol

/// `multipart_uploads` and `multipart_parts`: the upload sessions of large files and the parts
/// this device sent, recorded as each part is accepted. A sync killed at any point finds its
/// session again and sends only what is missing; the server's list of stored parts has the last
/// word (a part sent but not yet recorded here is not sent twice, a part the store lost is).
extension StateStore {
    /// A large file's upload session as this device knows it.
    public struct MultipartRecord: Sendable, Equatable {
        public var uploadID: String
        public var partSize: Int64
        public var sizeBytes: Int64
        /// Parts sent and accepted.
        public var partsDone: Set<Int>
    }

    /// The session recorded for these bytes, with the parts done.
    public func multipartUpload(for hash: ContentHash) async throws -> MultipartRecord? {
        try await db.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT upload_id, part_size, size_bytes FROM multipart_uploads WHERE content_hash = ?", arguments: [hash.rawValue]) else {
                return nil
            }
            let uploadID: String = row[0]
            let parts = try Int.fetchAll(db, sql: "SELECT number FROM multipart_parts WHERE upload_id = ?", arguments: [uploadID])
            return MultipartRecord(uploadID: uploadID, partSize: row[1], sizeBytes: row[2], partsDone: Set(parts))
        }
    }

    /// Records the session the server answered for these bytes, with the parts it holds (replacing
    /// what was recorded for them).
    func recordMultipartUpload(_ session: UploadSession) async throws {
        try await db.write { db in
            let id = session.uploadID.uuidString.lowercased()
            if let old = try String.fetchOne(db, sql: "SELECT upload_id FROM multipart_uploads WHERE content_hash = ?", arguments: [session.contentHash.rawValue]) {
                try db.execute(sql: "DELETE FROM multipart_parts WHERE upload_id = ?", arguments: [old])
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO multipart_uploads (content_hash, upload_id, part_size, size_bytes) VALUES (?, ?, ?, ?)",
                arguments: [session.contentHash.rawValue, id, session.partSize, session.sizeBytes])
            for number in session.storedParts {
                try db.execute(sql: "INSERT OR IGNORE INTO multipart_parts (upload_id, number) VALUES (?, ?)", arguments: [id, number])
            }
        }
    }

    /// Records one part as sent and accepted.
    func recordPartDone(uploadID: UUID, number: Int) async throws {
        try await db.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO multipart_parts (upload_id, number) VALUES (?, ?)", arguments: [uploadID.uuidString.lowercased(), number])
        }
    }

    /// Forgets a session (completed, or gone on the server).
    func forgetMultipartUpload(for hash: ContentHash) async throws {
        try await db.write { db in
            if let id = try String.fetchOne(db, sql: "SELECT upload_id FROM multipart_uploads WHERE content_hash = ?", arguments: [hash.rawValue]) {
                try db.execute(sql: "DELETE FROM multipart_parts WHERE upload_id = ?", arguments: [id])
            }
            try db.execute(sql: "DELETE FROM multipart_uploads WHERE content_hash = ?", arguments: [hash.rawValue])
        }
    }
}
