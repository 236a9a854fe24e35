public import Foundation

/// A device class (`desktop`, `phone`): which community plugins Obsidian enables is kept with the
/// other devices of the class instead of with every device. Obsidian reads the list from
/// `.obsidian/community-plugins.json` (the disk file); on a device with a profile that file stays
/// on the device (ignored), and the class's list travels as a vault file of its own (the copy,
/// `.obsidian/vaultsync-profiles/NAME/community-plugins.json`) that ``ProfileMirror`` keeps equal
/// to it. Plugins themselves (`.obsidian/plugins/`) still sync to every device.
public struct DeviceProfile: Sendable, Equatable {
    /// The files of `.obsidian/` a profile keeps apart.
    public static let files = ["community-plugins.json"]
    /// Where the classes' copies live in the vault.
    public static let copiesFolder = ".obsidian/vaultsync-profiles"

    public let name: String

    /// - Throws: ``DeviceProfileError/badName(_:)`` unless `name` is 1–32 lowercase letters,
    ///   digits, `-` or `_` (a folder's name on every system; `none` is not one).
    public init(_ name: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_")
        guard (1...32).contains(name.count), name.allSatisfy(allowed.contains), name != "none" else { throw DeviceProfileError.badName(name) }
        self.name = name
    }

    /// The file Obsidian reads, vault-relative.
    public static func diskPath(_ file: String) -> String { ".obsidian/" + file }

    /// The class's copy of `file`, vault-relative.
    public func copyPath(_ file: String) -> String { "\(Self.copiesFolder)/\(name)/\(file)" }

    /// The ignore lines that keep the disk files on this device.
    public static var ignoreLines: [String] { files.map { "/" + diskPath($0) } }
}

public enum DeviceProfileError: Error, Equatable, CustomStringConvertible {
    case badName(String)

    public var description: String {
        switch self {
        case .badName(let name):
            "'\(name.prefix(40))' is not a profile name: use 1 to 32 lowercase letters, digits, '-' or '_' (such as desktop or phone; 'none' drops the profile)"
        }
    }
}

/// Keeps a disk file (what Obsidian reads) and its class's copy (what syncs) equal, against the
/// content both had when they last agreed. Pure: the engine reads both, asks, and writes what the
/// answer says (each write only over the file as read).
public enum ProfileMirror {
    public enum Step: Equatable, Sendable {
        /// Nothing to do (neither exists).
        case none
        /// They are equal: record it as agreed.
        case agree(Data)
        /// The disk file changed here (or the class has no copy yet): the copy takes it, and syncs.
        case writeCopy(Data)
        /// The copy changed on another device of the class (or this device just joined it): the
        /// disk file takes it.
        case writeDisk(Data)
        /// Both changed since they agreed: both take the two lists merged.
        case writeBoth(Data)
    }

    /// - Parameters:
    ///   - disk: the disk file's bytes (nil: absent).
    ///   - copy: the copy's bytes (nil: absent).
    ///   - agreed: what both held when they last agreed (nil: never, on this device).
    public static func decide(disk: Data?, copy: Data?, agreed: Data?) -> Step {
        switch (disk, copy) {
        case (nil, nil): return .none
        case (let disk?, nil): return .writeCopy(disk)
        case (nil, let copy?): return .writeDisk(copy)
        case (let disk?, let copy?):
            if disk == copy { return .agree(disk) }
            if copy == agreed { return .writeCopy(disk) }
            // Joining a class takes its list (this device's former one is the vault's shared file).
            guard let agreed, disk != agreed else { return .writeDisk(copy) }
            // Both changed: merged as the `json` policy merges (a list of names as a set); what
            // cannot be merged keeps this device's (the copy's versions stay in the server's history).
            if case .merged(let text) = JSONMerge.merge(local: String(decoding: disk, as: UTF8.self), remote: String(decoding: copy, as: UTF8.self), base: String(decoding: agreed, as: UTF8.self)) {
                return .writeBoth(Data(text.utf8))
            }
            return .writeCopy(disk)
        }
    }
}
