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
        @Flag(help: "Print JSON.") var json = false

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

        func run() async throws {
            let engine = try SyncEngine(root: vaultURL(vault))
            let created = try await engine.makeAppPassword(name: name)
            let status = try await VaultStatus.read(root: vaultURL(vault))
            // A vault shared with the account is reached by its id (a name is looked up among its own).
            let linked = try? await engine.linkedVault()
            let name = linked.map { $0.owner == nil ? $0.name : $0.vaultID.uuidString.lowercased() } ?? "default"
            var server = status.server ?? "SERVER"
            while server.hasSuffix("/") { server.removeLast() }
            let folder = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? name
            let url = "\(server)/dav/\(folder)/"
            if json { return try printJSON(Output(created: created, url: url, user: status.email)) }
            print("""
                app password for '\(created.deviceName)': \(created.password)
                It is shown only now. In the WebDAV client: URL \(url)  user \(status.email ?? "your email")  password the one above.
                Revoke it with 'vaultsync devices revoke \(created.deviceID.uuidString.prefix(8).lowercased())'.
                """)
        }
    }
}
