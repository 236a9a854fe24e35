import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

@main
struct VaultSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vaultsync",
        abstract: "Keep a folder of notes in sync through a VaultSync server.",
        // One line per paragraph: the help renderer wraps to the terminal's width.
        discussion: """
            Exit codes: 0 success (also when conflicts remain open: the output says so), \
            1 a failure (some files could not be synced, or an error), \
            3 the server is unreachable (changes stay pending), 4 the device must sign in again ('vaultsync login'), \
            5 the folder's vault was deleted on the server or is no longer shared with you, \
            64 the command line is wrong (nothing was done). 'vaultsync --version' prints the release.

            Passwords come from VAULTSYNC_PASSWORD, --password-stdin, or a prompt on a terminal. \
            An encrypted vault's passphrase comes from VAULTSYNC_PASSPHRASE, --passphrase-stdin, or a prompt; \
            its recovery key from VAULTSYNC_RECOVERY_KEY or --recovery-key-stdin.
            """,
        subcommands: [
            Signup.self, Init.self, Login.self, Passphrase.self, Logout.self, Sync.self, Watch.self, Status.self, Folders.self, Get.self, Conflicts.self, Resolve.self, Retry.self, Repair.self,
            History.self, Restore.self, Search.self, Export.self, Import.self, Log.self, Devices.self, AppPassword.self, Tokens.self, Vaults.self, Members.self, Invitations.self, Keys.self, Account.self, Nonce.self, ServerInfo.self,
        ])

    func run() async throws {
        throw CleanExit.helpRequest(self)
    }

    /// Runs the command; failures the README documents become their exit code and one line on
    /// standard error (``CLIFailure``), the rest are ArgumentParser's usage errors.
    static func main() async {
        AllocatorSettings.apply()
        // `vaultsync --version` alone prints the release. Not a flag of this command: ArgumentParser
        // reads a parent's flags after a subcommand too, so it took `restore PATH --version N`'s
        // (nor its `version:`, which every subcommand's help would list beside restore's own).
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            print(ReleaseVersion.current)
            return
        }
        var parsed: (any ParsableCommand)?
        do {
            var command = try parseAsRoot()
            parsed = command
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            if let failure = CLIFailure(error) {
                // A script that asked for JSON gets JSON on standard output for a failure too.
                if let reporting = parsed as? any JSONReporting, reporting.json { failure.printJSON() }
                FileHandle.standardError.write(Data("error: \(failure.message)\n".utf8))
                exit(withError: ExitCode(failure.exitCode))
            }
            // The command line itself is ArgumentParser's to explain (with the usage); anything
            // else went wrong around a right command line: one `error:` line, as for the rest.
            guard exitCode(for: error) == .failure, !(error is ExitCode) else { exit(withError: error) }
            let message = CLIFailure.describe(error)
            if let reporting = parsed as? any JSONReporting, reporting.json { CLIFailure(unexplained: message).printJSON() }
            FileHandle.standardError.write(Data("error: \(message)\n".utf8))
            exit(withError: ExitCode.failure)
        }
    }
}

/// A command with `--json`: its whole-command failures print `{"error": …, "exit_code": …}`.
protocol JSONReporting {
    var json: Bool { get }
}

extension Init: JSONReporting {}
extension Sync: JSONReporting {}
extension Retry: JSONReporting {}
extension Status: JSONReporting {}
extension Watch: JSONReporting {}
extension Conflicts: JSONReporting {}
extension History: JSONReporting {}
extension Restore: JSONReporting {}
extension Import: JSONReporting {}
extension Search: JSONReporting {}
extension ServerInfo: JSONReporting {}
extension DeviceList: JSONReporting {}
extension DeviceRename: JSONReporting {}
extension DeviceRevoke: JSONReporting {}
extension AccountDelete: JSONReporting {}
extension AccountIdentities: JSONReporting {}
extension AccountLink: JSONReporting {}
extension AccountUnlink: JSONReporting {}
extension VaultsList: JSONReporting {}
extension VaultsCreate: JSONReporting {}
extension VaultsRename: JSONReporting {}
extension VaultsDelete: JSONReporting {}
extension MembersList: JSONReporting {}
extension MembersInvite: JSONReporting {}
extension MembersSetRole: JSONReporting {}
extension InvitationsList: JSONReporting {}
extension InvitationsAccept: JSONReporting {}
