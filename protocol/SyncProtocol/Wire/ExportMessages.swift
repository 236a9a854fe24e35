public import Foundation

/// `POST /vault/export` (starts a job) and `GET /vault/export/{id}` (polls it).
public struct ExportStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case running, ready, failed
    }

    public var exportID: UUID
    public var state: State
    /// Files in the archive (known once the job has listed the vault).
    public var fileCount: Int?
    /// Files written so far.
    public var filesDone: Int
    /// When ready: where to GET the zip, until `expires_at`.
    public var downloadURL: URL?
    public var expiresAt: Date?
    /// When ready: the archive's size.
    public var sizeBytes: Int64?
    /// When failed: why.
    public var error: String?

    public init(exportID: UUID, state: State, fileCount: Int? = nil, filesDone: Int = 0, downloadURL: URL? = nil, expiresAt: Date? = nil, sizeBytes: Int64? = nil, error: String? = nil) {
        self.exportID = exportID
        self.state = state
        self.fileCount = fileCount
        self.filesDone = filesDone
        self.downloadURL = downloadURL
        self.expiresAt = expiresAt
        self.sizeBytes = sizeBytes
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case state, error
        case exportID = "export_id"
        case fileCount = "file_count"
        case filesDone = "files_done"
        case downloadURL = "download_url"
        case expiresAt = "expires_at"
        case sizeBytes = "size_bytes"
    }
}

/// `vaultsync-export.json`, the manifest inside every export archive.
public struct ExportManifest: Codable, Sendable, Equatable {
    /// The archive entry holding the manifest.
    public static let entryName = "vaultsync-export.json"

    public var formatVersion: Int
    public var exportedAt: Date
    public var vault: String
    public var files: [ExportedFile]

    public init(formatVersion: Int = 1, exportedAt: Date, vault: String, files: [ExportedFile]) {
        self.formatVersion = formatVersion
        self.exportedAt = exportedAt
        self.vault = vault
        self.files = files
    }

    enum CodingKeys: String, CodingKey {
        case vault, files
        case formatVersion = "format_version"
        case exportedAt = "exported_at"
    }
}

/// One file of an export, with the same fields as a file in `GET /vault/state`: its entry is at
/// `path` in the archive.
public typealias ExportedFile = RemoteFile
