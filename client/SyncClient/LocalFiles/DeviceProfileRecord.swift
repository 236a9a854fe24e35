public import Foundation
public import SyncCore
import SyncProtocol

/// This device's class (`.vaultsync/profile.json`, never synced: ``DeviceProfile``) and, for each
/// file it keeps apart, what the disk file and the class's copy held when they last agreed
/// (``ProfileMirror``).
public struct DeviceProfileRecord: Codable, Sendable, Equatable {
    public var name: String
    /// By file name (`community-plugins.json`).
    public var agreed: [String: Data]

    public init(name: String, agreed: [String: Data] = [:]) {
        self.name = name
        self.agreed = agreed
    }

    static let fileName = "profile.json"

    static func file(_ root: URL) -> URL {
        root.appendingPathComponent(VaultPath.stateFolderName).appendingPathComponent(fileName)
    }

    /// The device's record; nil when it has no profile (or the record cannot be read: then it
    /// has none until one is chosen again).
    public static func read(root: URL) -> DeviceProfileRecord? {
        guard let data = try? Data(contentsOf: file(root)), let record = try? JSONDecoder().decode(DeviceProfileRecord.self, from: data),
              (try? DeviceProfile(record.name)) != nil else { return nil }
        return record
    }

    /// Saves `record` atomically; nil removes it (no profile).
    public static func save(_ record: DeviceProfileRecord?, root: URL) throws {
        let url = file(root)
        guard let record else {
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(record).write(to: url, options: .atomic)
    }

    /// Chooses the profile `name` (nil: none). Another name than before starts over: nothing
    /// agreed yet, so the device takes the class's list.
    public static func choose(_ name: String?, root: URL) throws {
        guard let name else { return try save(nil, root: root) }
        let profile = try DeviceProfile(name)
        if read(root: root)?.name == profile.name { return }
        try save(DeviceProfileRecord(name: profile.name), root: root)
    }
}
