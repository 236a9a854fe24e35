public import Foundation

/// `POST /devices/register`, the seed's shape.
public struct RegisterDeviceRequest: Codable, Sendable, Equatable {
    public var deviceName: String
    public var platform: String
    public var pushToken: String?

    public init(deviceName: String, platform: String, pushToken: String? = nil) {
        self.deviceName = deviceName
        self.platform = platform
        self.pushToken = pushToken
    }

    enum CodingKeys: String, CodingKey {
        case deviceName = "device_name"
        case platform
        case pushToken = "push_token"
    }
}

/// A registered device, as `POST /devices/register` and `GET /devices` return it.
public struct DeviceInfo: Codable, Sendable, Equatable {
    public var deviceID: UUID
    public var deviceName: String
    public var platform: String
    public var createdAt: Date
    public var lastSeenAt: Date?

    public init(deviceID: UUID, deviceName: String, platform: String, createdAt: Date, lastSeenAt: Date?) {
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.platform = platform
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case deviceName = "device_name"
        case platform
        case createdAt = "created_at"
        case lastSeenAt = "last_seen_at"
    }
}

/// `GET /devices`.
public struct DeviceList: Codable, Sendable, Equatable {
    public var devices: [DeviceInfo]
    public init(devices: [DeviceInfo]) { self.devices = devices }
}

/// `GET /health`.
public struct HealthResponse: Codable, Sendable, Equatable {
    public var status: String
    public var serverVersion: String
    public var protocolVersions: [Int]
    /// The request limits clients should split batches by.
    public var limits: ServerLimits?
    /// `ok`, or `unavailable` when the server cannot reach its database (then the status is 503).
    public var database: String?
    /// `ok`, or `full` when the last write to the blob store found no space (until one succeeds).
    public var blobStorage: String?

    public init(status: String, serverVersion: String, protocolVersions: [Int], limits: ServerLimits? = nil, database: String? = nil, blobStorage: String? = nil) {
        self.status = status
        self.serverVersion = serverVersion
        self.protocolVersions = protocolVersions
        self.limits = limits
        self.database = database
        self.blobStorage = blobStorage
    }

    enum CodingKeys: String, CodingKey {
        case status, limits, database
        case serverVersion = "server_version"
        case protocolVersions = "protocol_versions"
        case blobStorage = "blob_storage"
    }
}

/// Limits a server enforces per request and per file.
public struct ServerLimits: Codable, Sendable, Equatable {
    public var maxBatchFiles: Int
    public var maxFileBytes: Int64
    public var maxStatePage: Int

    public init(maxBatchFiles: Int, maxFileBytes: Int64, maxStatePage: Int) {
        self.maxBatchFiles = maxBatchFiles
        self.maxFileBytes = maxFileBytes
        self.maxStatePage = maxStatePage
    }

    enum CodingKeys: String, CodingKey {
        case maxBatchFiles = "max_batch_files"
        case maxFileBytes = "max_file_bytes"
        case maxStatePage = "max_state_page"
    }
}
