import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

/// `vaultsync app-password create NAME`: a password for a WebDAV client.
struct AppPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-password",
        abstract: "Make passwords for WebDAV clients (Remotely Save, rclone, a file manager).",
        discussion: """
            Each app password is a device of the account: 'vaultsync devices' lists it, renames it and \
            revokes it (which stops the password at once). It is shown once; the server keeps only its hash. \
            A WebDAV client signs in with your email and it, at <server>/dav/<vault>/ (docs/webdav.md).
            """,
        subcommands: [Create.self], defaultSubcommand: Create.self)

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make an app password (printed once).")
        @Argument(help: "What it is for, as the devices list shows it (e.g. 'Obsidian on my phone').") var name: String
        @Option(help: "The vault folder (default: the current folder).") var vault: String?
        @Flag(help: "Reach only this folder's vault (default: every vault of the account).") var vaultOnly = false
        @Flag(help: "Only read: every write over WebDAV is refused (403).") var readOnly = false
        @Option(help: "How long it lasts: a number of days, hours or weeks, as 90d, 12h or 2w (default: until revoked).") var expires: String?
        @Flag(help: "Print JSON.") var json = false

        /// `--expires`: N followed by `h`, `d` or `w`, in seconds; nil when it is not one.
        static func lifetime(_ text: String) -> Int? {
            let units = ["h": 3_600, "d": 86_400, "w": 604_800]
            guard let unit = text.last.flatMap({ units[String($0)] }), let count = Int(text.dropLast()), count > 0, count <= 3_660 * 86_400 / unit else { return nil }
            return count * unit
        }

        /// The `--json` answer: the password with where and as whom a WebDAV client signs in.
        struct Output: Encodable {
            let created: AppPasswordCreated
            let url: String
            let user: String?

            func encode(to encoder: any Encoder) throws {
                try created.encode(to: encoder)
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(url, forKey: .url)
                try container.encodeIfPresent(user, forKey: .user)
            }

            enum Keys: String, CodingKey { case url, user }
        }

        func validate() throws {
            if let expires, Self.lifetime(expires) == nil {
                throw ValidationError("--expires is how long it lasts: a number and h, d or w (90d, 12h, 2w), at most ten years; not '\(expires)'")
            }
        }

        func run() async throws {
            let engine = try SyncEngine(root: vaultURL(vault))
            // A vault shared with the account is reached by its id (a name is looked up among its own).
            let linked = try? await engine.linkedVault()
            if vaultOnly, linked == nil { throw ValidationError("--vault-only needs the vault: sync this folder once first ('vaultsync sync')") }
            let created = try await engine.makeAppPassword(
                AppPasswordRequest(name: name, vault: vaultOnly ? linked?.vaultID.uuidString.lowercased() : nil, readOnly: readOnly, expiresInSeconds: expires.flatMap(Self.lifetime)))
            let status = try await VaultStatus.read(root: vaultURL(vault))
            let name = linked.map { $0.owner == nil ? $0.name : $0.vaultID.uuidString.lowercased() } ?? "default"
            var server = status.server ?? "SERVER"
            while server.hasSuffix("/") { server.removeLast() }
            let folder = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? name
            let url = "\(server)/dav/\(folder)/"
            if json { return try printJSON(Output(created: created, url: url, user: status.email)) }
            var reach = [created.vaultID == nil ? "every vault of the account" : "only the vault at \(url)"]
            if created.readOnly { reach.append("reading only") }
            if let until = created.expiresAt { reach.append("until \(WireDate.format(until))") }
            print("""
                app password for '\(created.deviceName)': \(created.password)
                It reaches \(reach.joined(separator: ", ")).
                It is shown only now. In the WebDAV client: URL \(url)  user \(status.email ?? "your email")  password the one above.
                Revoke it with 'vaultsync devices revoke \(created.deviceID.uuidString.prefix(8).lowercased())'.
                """)
        }
    }
}
