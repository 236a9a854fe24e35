public import Foundation

/// `POST /devices/register`, the seed's shape.
public struct RegisterDeviceRequest: Codable, Sendable, Equatable {
    public var deviceName: String
    public var platform: String
    /// The token a push service gave the app, to wake it when the vault changes.
    public var pushToken: String?
    /// Which service `pushToken` is from; when absent it follows from `platform`
    /// (``PushProvider/forPlatform(_:)``).
    public var pushProvider: PushProvider?
    /// A device signing in again: its id. When it is one of the account's devices (not revoked),
    /// the session becomes that device's and no new device is made.
    public var deviceID: UUID?

    public init(deviceName: String, platform: String, pushToken: String? = nil, pushProvider: PushProvider? = nil, deviceID: UUID? = nil) {
        self.deviceName = deviceName
        self.platform = platform
        self.pushToken = pushToken
        self.pushProvider = pushProvider
        self.deviceID = deviceID
    }

    enum CodingKeys: String, CodingKey {
        case deviceName = "device_name"
        case deviceID = "device_id"
        case platform
        case pushToken = "push_token"
        case pushProvider = "push_provider"
    }
}

/// The push services that wake a device which holds no change-feed connection.
public enum PushProvider: String, Codable, Sendable, CaseIterable {
    /// Apple Push Notification service (iOS, iPadOS, macOS, watchOS, tvOS, visionOS).
    case apns
    /// Firebase Cloud Messaging (Android).
    case fcm

    /// The service a device of `platform` gets its tokens from, if the platform says.
    public static func forPlatform(_ platform: String) -> PushProvider? {
        switch platform.lowercased() {
        case "ios", "ipados", "macos", "watchos", "tvos", "visionos": .apns
        case "android": .fcm
        default: nil
        }
    }
}

/// `PUT /devices/{id}/push-token`: the device's current push token (apps renew them).
public struct PushTokenRequest: Codable, Sendable, Equatable {
    public var provider: PushProvider
    public var token: String

    public init(provider: PushProvider, token: String) {
        self.provider = provider
        self.token = token
    }
}

/// What a silent push carries: which vault moved and what changed (a hint; the cursor is the truth).
public struct VaultChangedNotice: Codable, Sendable, Equatable {
    /// Always `vault-changed`.
    public var event: String
    /// The vault's name.
    public var vault: String
    /// The vault's id: what tells a vault shared with the device's account from one of its own of
    /// the same name. Nil from servers that predate shared vaults.
    public var vaultID: UUID?
    /// Paths changed since the previous push, capped.
    public var changedPaths: [String]
    /// More paths changed than `changedPaths` lists.
    public var more: Bool
    public var serverTime: Date

    public init(vault: String, vaultID: UUID? = nil, changedPaths: [String], more: Bool, serverTime: Date) {
        self.event = "vault-changed"
        self.vault = vault
        self.vaultID = vaultID
        self.changedPaths = changedPaths
        self.more = more
        self.serverTime = serverTime
    }

    enum CodingKeys: String, CodingKey {
        case event, vault, more
        case vaultID = "vault_id"
        case changedPaths = "changed_paths"
        case serverTime = "server_time"
    }
}

/// A registered device, as `POST /devices/register` and `GET /devices` return it.
public struct DeviceInfo: Codable, Sendable, Equatable {
    public var deviceID: UUID
    public var deviceName: String
    public var platform: String
    public var createdAt: Date
    public var lastSeenAt: Date?
    /// The service of the device's push token; nil when it has none (never the token itself).
    public var pushProvider: PushProvider?
    /// Whether it is the device whose session made the request (nil from servers that do not say).
    public var current: Bool?
    /// Which of the vault's folders the device holds, as it last said (``DeviceFoldersRequest``);
    /// nil when it never said (every folder).
    public var folders: String?

    public init(
        deviceID: UUID, deviceName: String, platform: String, createdAt: Date, lastSeenAt: Date?, pushProvider: PushProvider? = nil, current: Bool? = nil,
        folders: String? = nil
    ) {
        self.folders = folders
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.platform = platform
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.pushProvider = pushProvider
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case deviceName = "device_name"
        case platform
        case createdAt = "created_at"
        case lastSeenAt = "last_seen_at"
        case pushProvider = "push_provider"
        case current, folders
    }
}

/// `PUT /devices/{id}/folders`: which of the vault's folders the device holds, in words for people
/// ("all but Archive/"), shown with the device; the server only keeps it for display. A device of
/// an end-to-end encrypted vault says it without names ("all but 1 folder").
public struct DeviceFoldersRequest: Codable, Sendable, Equatable {
    public var folders: String
    public init(folders: String) { self.folders = folders }
}

/// `PATCH /devices/{id}`: a new name for one of the user's devices.
public struct RenameDeviceRequest: Codable, Sendable, Equatable {
    public var deviceName: String
    public init(deviceName: String) { self.deviceName = deviceName }

    enum CodingKeys: String, CodingKey {
        case deviceName = "device_name"
    }
}

/// `GET /devices`: the user's devices that are not revoked, oldest first.
public struct DeviceList: Codable, Sendable, Equatable {
    public var devices: [DeviceInfo]
    public init(devices: [DeviceInfo]) { self.devices = devices }
}

/// `GET /health`.
public struct HealthResponse: Codable, Sendable, Equatable {
    public var status: String
    /// The server's release: sent by servers before 0.1.0's security review only (the operator
    /// reads it in `GET /health/ready`); clients must not need it.
    public var serverVersion: String?
    public var protocolVersions: [Int]
    /// The request limits, sent by the same earlier servers only (`GET /health/ready` has them); a
    /// client learns the batch limit from a `batch_too_large` answer.
    public var limits: ServerLimits?
    /// `ok`, or `unavailable` when the server cannot reach its database (the answer is still `200`:
    /// `/health` is a liveness check).
    public var database: String?
    /// `ok`, or `full` when the last write to the blob store found no space (until one succeeds).
    public var blobStorage: String?

    public init(status: String, serverVersion: String?, protocolVersions: [Int], limits: ServerLimits? = nil, database: String? = nil, blobStorage: String? = nil) {
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

/// `POST /devices/app-passwords`: a password for a WebDAV client (`/dav/`), which becomes a device
/// of the account named `name`; reaching one vault only (`vault`: its id or name; absent: every
/// vault the account reaches), only reading (`read_only`), until `expires_in_seconds` from now.
public struct AppPasswordRequest: Codable, Sendable, Equatable {
    public var name: String
    public var vault: String?
    public var readOnly: Bool?
    public var expiresInSeconds: Int?
    /// One folder of `vault` only (an agent's token, `vaultsync tokens create --under`): outside it
    /// nothing is there. Needs `vault`; such a password is for `/mcp`, not WebDAV.
    public var under: String?

    public init(name: String, vault: String? = nil, readOnly: Bool? = nil, expiresInSeconds: Int? = nil, under: String? = nil) {
        (self.name, self.vault, self.readOnly, self.expiresInSeconds, self.under) = (name, vault, readOnly, expiresInSeconds, under)
    }

    enum CodingKeys: String, CodingKey {
        case name, vault, under
        case readOnly = "read_only"
        case expiresInSeconds = "expires_in_seconds"
    }
}

/// The answer: the password, shown this once (the server keeps only its hash), its device, and
/// what it reaches.
public struct AppPasswordCreated: Codable, Sendable, Equatable {
    public var password: String
    public var deviceID: UUID
    public var deviceName: String
    /// The one vault it reaches (nil: every vault the account reaches).
    public var vaultID: UUID?
    public var readOnly: Bool
    public var expiresAt: Date?
    /// The one folder it reaches (`notes/2024/`; nil: the whole vault).
    public var under: String?

    public init(password: String, deviceID: UUID, deviceName: String, vaultID: UUID? = nil, readOnly: Bool = false, expiresAt: Date? = nil, under: String? = nil) {
        (self.password, self.deviceID, self.deviceName) = (password, deviceID, deviceName)
        (self.vaultID, self.readOnly, self.expiresAt, self.under) = (vaultID, readOnly, expiresAt, under)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        password = try container.decode(String.self, forKey: .password)
        deviceID = try container.decode(UUID.self, forKey: .deviceID)
        deviceName = try container.decode(String.self, forKey: .deviceName)
        vaultID = try container.decodeIfPresent(UUID.self, forKey: .vaultID)
        readOnly = try container.decodeIfPresent(Bool.self, forKey: .readOnly) ?? false
        expiresAt = try container.decodeIfPresent(Date.self, forKey: .expiresAt)
        under = try container.decodeIfPresent(String.self, forKey: .under)
    }

    enum CodingKeys: String, CodingKey {
        case password, under
        case deviceID = "device_id"
        case deviceName = "device_name"
        case vaultID = "vault_id"
        case readOnly = "read_only"
        case expiresAt = "expires_at"
    }
}
