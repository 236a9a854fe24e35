import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

/// `vaultsync devices [list|rename|revoke]`: the account's devices, as the vault's session sees them.
struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, rename or revoke the devices signed in to your account.",
        discussion: "A device is named by its id, the start of its id, or its name. Revoking one ends its sessions at once: its next sync is refused (exit code 4) and its files stay as they are.",
        subcommands: [DeviceList.self, DeviceRename.self, DeviceRevoke.self, DeviceSessions.self, DeviceEndSession.self], defaultSubcommand: DeviceList.self)
}

struct DeviceList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the account's devices (this one marked).")
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let devices = try await engine.devices()
        if json { return try printJSON(SyncProtocol.DeviceList(devices: devices)) }
        let sessions = try await engine.sessions()
        for device in devices {
            let seen = device.lastSeenAt.map { "last seen \(WireDate.format($0))" } ?? "never seen"
            let mark = device.current == true ? "  (this device)" : ""
            print("\(device.deviceID.uuidString.lowercased())  \(device.deviceName)  \(device.platform)  added \(WireDate.format(device.createdAt))  \(seen)\(mark)\(device.folders.map { "  holds \($0)" } ?? "")")
            for session in sessions where session.deviceID == device.deviceID { print("    \(DeviceSessions.line(session))") }
        }
        let unbound = sessions.filter { $0.deviceID == nil }
        if !unbound.isEmpty {
            print("sessions bound to no device (a sign-in that never registered one; end one with 'vaultsync devices end-session ID'):")
            for session in unbound { print("    \(DeviceSessions.line(session))") }
        }
    }
}

struct DeviceSessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions", abstract: "List the account's sessions (sign-ins), each under its device or bound to none.")
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    static func line(_ session: SessionInfo) -> String {
        "session \(session.sessionID.uuidString.lowercased())  signed in \(WireDate.format(session.createdAt))\(session.current ? "  (this folder's)" : "")"
    }

    func run() async throws {
        let sessions = try await SyncEngine(root: vaultURL(vault)).sessions()
        if json { return try printJSON(SessionList(sessions: sessions)) }
        for session in sessions { print("\(Self.line(session))  \(session.deviceName.map { "device \($0)" } ?? "no device")") }
    }
}

struct DeviceEndSession: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end-session", abstract: "End one session of the account: its tokens are refused from its next request.")
    @Argument(help: "The session: its id or the start of its id (8 characters at least).") var session: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let text = session.lowercased()
        let matches = try await engine.sessions().filter { $0.sessionID.uuidString.lowercased().hasPrefix(text) }
        guard text.count >= 8, matches.count == 1, let chosen = matches.first else {
            throw CLIRefusal(matches.count > 1 ? "'\(session)' names several sessions: give more of the id" : "no live session '\(session)' on this account (see 'vaultsync devices sessions')")
        }
        let own = try await engine.endSession(chosen.sessionID)
        print(own ? "ended this folder's session: signed out; 'vaultsync login' signs in again" : "ended session \(chosen.sessionID.uuidString.lowercased()): its next request is refused")
    }
}

struct DeviceRename: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Give a device a new name.")
    @Argument(help: "The device: its id, the start of its id, or its name.") var device: String
    @Argument(help: "The new name.") var name: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let chosen = try DeviceChoice.pick(device, from: try await engine.devices())
        let renamed = try await engine.renameDevice(chosen.deviceID, to: name)
        if json { return try printJSON(renamed) }
        print("renamed \(chosen.deviceName) to \(renamed.deviceName)")
    }
}

struct DeviceRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Cut a device off: its sessions end at once and it must sign in again to sync.")
    @Argument(help: "The device: its id, the start of its id, or its name.") var device: String
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    struct Outcome: Encodable {
        var revoked: UUID
        var deviceName: String
        var thisDevice: Bool
        enum CodingKeys: String, CodingKey {
            case revoked
            case deviceName = "device_name"
            case thisDevice = "this_device"
        }
    }

    func run() async throws {
        let root = vaultURL(vault)
        let engine = try SyncEngine(root: root)
        let chosen = try DeviceChoice.pick(device, from: try await engine.devices())
        let ownDevice = try await engine.revokeDevice(chosen.deviceID)
        if json { return try printJSON(Outcome(revoked: chosen.deviceID, deviceName: chosen.deviceName, thisDevice: ownDevice)) }
        if ownDevice {
            print("revoked \(chosen.deviceName) (this device): signed out; 'vaultsync login \(root.path)' signs in again as a new device")
        } else {
            print("revoked \(chosen.deviceName): its sessions ended; its next sync is refused")
        }
    }
}
