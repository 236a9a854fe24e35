import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

/// `vaultsync vaults [list|create|rename|delete|rekey]`: the account's vaults on the server.
struct Vaults: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, create, rename or delete the vaults of your account; re-encrypt an encrypted vault's names.",
        discussion: "Link a folder to a vault with 'vaultsync init DIR --vault NAME' (add --create to create it). Commands here act through the folder given with --vault (default: the current folder).",
        subcommands: [VaultsList.self, VaultsCreate.self, VaultsRename.self, VaultsDelete.self, VaultsRekey.self], defaultSubcommand: VaultsList.self)
}

/// The account's own vault of `vaults` named `name`, or a failure that lists them (a vault shared
/// with the account is its owner's to rename or delete).
private func vaultNamed(_ name: String, in vaults: [VaultInfo]) throws -> VaultInfo {
    guard let vault = vaults.first(where: { $0.owner == nil && $0.name == name }) else {
        let own = vaults.filter { $0.owner == nil }.map(\.name).joined(separator: ", ")
        throw CLIRefusal("the account has no vault named '\(name)' of its own; its vaults: \(own)")
    }
    return vault
}

struct VaultsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the account's vaults, then those shared with it as OWNER/NAME with your role (the folder's own marked).")
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let vaults = try await engine.vaults()
        if json { return try printJSON(VaultList(vaults: vaults)) }
        let linked = SyncEngine.linked(await engine.linkedVaultID, in: vaults)?.vaultID
        for info in vaults {
            let mine = info.vaultID == linked
            let shared = info.owner == nil ? "" : "  \(info.role?.rawValue ?? "member")"
            print("\(info.qualifiedName)\(shared)  \(counted(info.files, "file"))  \(info.bytes) bytes  created \(WireDate.format(info.createdAt))\(info.encrypted == true ? "  encrypted" : "")\(mine ? "  (this folder)" : "")")
        }
    }
}

struct VaultsCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create an empty vault.")
    @Argument(help: "Its name.") var name: String
    @Option(help: "The vault folder whose account is used (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let created = try await SyncEngine(root: vaultURL(vault)).createVault(named: name)
        if json { return try printJSON(created) }
        print("created vault '\(created.name)'; link a folder to it with 'vaultsync init DIR --vault \(created.name) --server … --email …'")
    }
}

struct VaultsRename: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a vault (linked folders go on syncing).")
    @Argument(help: "Its current name.") var name: String
    @Argument(help: "The new name.") var newName: String
    @Option(help: "The vault folder whose account is used (default: the current folder).") var vault: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let renamed = try await engine.renameVault(try vaultNamed(name, in: try await engine.vaults()).vaultID, to: newName)
        if json { return try printJSON(renamed) }
        print("renamed vault '\(name)' to '\(renamed.name)'")
    }
}

struct VaultsDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a vault and everything in it on the server (folders keep their files).",
        discussion: "There is no undo: save a copy first with 'vaultsync export'. Without --yes the command asks you to type the vault's name (on a terminal only).")
    @Argument(help: "Its name.") var name: String
    @Option(help: "The vault folder whose account is used (default: the current folder).") var vault: String?
    @Flag(help: "Do not ask for confirmation.") var yes = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        let target = try vaultNamed(name, in: try await engine.vaults())
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else { throw CLIRefusal("refusing to delete the vault '\(name)' without --yes when not on a terminal; nothing was deleted") }
            print("This deletes the vault '\(name)' (\(counted(target.files, "file"))) and its history on the server, for good. Type its name to confirm: ", terminator: "")
            guard readLine(strippingNewline: true) == name else { throw CLIRefusal("not confirmed; nothing was deleted") }
        }
        let deleted = try await engine.deleteVault(target.vaultID, confirmName: name)
        if json { return try printJSON(deleted) }
        print("deleted vault '\(name)': \(counted(deleted.files, "file")) and \(counted(deleted.blobs, "stored blob")) removed from the server")
    }
}

struct VaultsRekey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey", abstract: "Re-encrypt an encrypted vault's names under a new key (owner and admins).",
        discussion: """
            Syncs, makes a new generation of the vault's key (given to everyone in the vault), renames every file \
            under that generation's name key as one change on the server, then syncs again. Afterwards someone \
            removed from the vault cannot read the names of its files from the server's data, not even those made \
            before the rekey. Without --contents, contents are not sealed again: each version stays under the key that was newest when \
            it was written; with --contents every current file is also sealed again under the new generation (for a \
            key that leaked: this device downloads and uploads the whole vault, and every other device downloads it \
            again). Other devices switch at their next sync; 'vaultsync history' of a file starts at the rekey.
            """)
    @Option(help: "The vault folder (default: the current folder).") var vault: String?
    @Flag(help: "Also seal every current file's contents again under the new key.") var contents = false
    @Flag(help: "Print JSON.") var json = false

    struct Output: Encodable {
        let namesGeneration: Int
        let renamed: Int
        let resealed: Bool
        enum CodingKeys: String, CodingKey {
            case renamed, resealed
            case namesGeneration = "names_generation"
        }
    }

    func run() async throws {
        let engine = try SyncEngine(root: vaultURL(vault))
        // Changes made here go up under the old names first (a server that cannot be reached, or
        // a session it refuses, fails the rekey itself with the usual exit code).
        _ = try await engine.sync()
        let outcome = try await engine.rekeyVault(contents: contents)
        _ = try await engine.sync()
        if json { return try printJSON(Output(namesGeneration: outcome.generation, renamed: outcome.renamed, resealed: outcome.resealed)) }
        let files = counted(outcome.renamed, "file")
        print("renamed \(files)\(outcome.resealed ? ", contents sealed again," : "") under key generation \(outcome.generation); other devices switch at their next sync")
    }
}
