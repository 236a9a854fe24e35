import Crypto
import Foundation
@testable import SyncServer
import Testing

/// The rule that says which failure counts a password check waits for, adds to and clears, and
/// the tickets that let a device that signed in before skip the counts others fill.
@Suite struct SignInAdmissionTests {
    static let policy = SignInThrottlePolicy()

    @Test func withoutATicketTheAccountHereTheAddressAndTheAccountEverywhereCount() {
        let plan = SignInAdmission.plan(account: "ada@example.com", address: "203.0.113.9", ticketID: nil, policy: Self.policy)
        #expect(plan.waitFor == ["account:ada@example.com|203.0.113.9", "address:203.0.113.9", "everywhere:ada@example.com"])
        #expect(plan.countFailure == [
            .init(key: "account:ada@example.com|203.0.113.9", free: 3), .init(key: "address:203.0.113.9", free: 20),
            .init(key: "everywhere:ada@example.com", free: 10),
        ])
        #expect(plan.clearOnSuccess == ["account:ada@example.com|203.0.113.9"], "a success must not reset the count a distributed guesser fills")
    }

    /// App passwords count apart from password sign-ins, and the account from everywhere only
    /// past a ceiling nobody reaches by accident.
    @Test func appPasswordsHaveCountsOfTheirOwn() {
        let plan = SignInAdmission.appPasswordPlan(account: "ada@example.com", address: "203.0.113.9", policy: Self.policy)
        #expect(plan.waitFor == ["app:ada@example.com|203.0.113.9", "address:203.0.113.9", "app-everywhere:ada@example.com"])
        #expect(plan.countFailure == [
            .init(key: "app:ada@example.com|203.0.113.9", free: 3), .init(key: "address:203.0.113.9", free: 20),
            .init(key: "app-everywhere:ada@example.com", free: 1000),
        ])
        #expect(plan.clearOnSuccess == ["app:ada@example.com|203.0.113.9"])
    }

    /// A bearer token names no account: its failures count against the address alone, so no
    /// one's guesses hold another's agents off.
    @Test func aBearerTokenCountsOnlyItsAddress() {
        let plan = SignInAdmission.tokenPlan(address: "203.0.113.9", policy: Self.policy)
        #expect(plan.waitFor == ["address:203.0.113.9"])
        #expect(plan.countFailure == [.init(key: "address:203.0.113.9", free: 20)])
        #expect(plan.clearOnSuccess.isEmpty)
    }

    @Test func withATicketOnlyTheTicketsOwnCountApplies() {
        let plan = SignInAdmission.plan(account: "ada@example.com", address: "203.0.113.9", ticketID: "t1", policy: Self.policy)
        #expect(plan.waitFor == ["ticket:t1"])
        #expect(plan.countFailure == [.init(key: "ticket:t1", free: 3)])
        #expect(plan.clearOnSuccess == ["ticket:t1", "account:ada@example.com|203.0.113.9"])
    }

    @Test(arguments: [("  Ada@Example.com ", "ada@example.com"), ("bob@example.com", "bob@example.com")])
    func accountNamesAreTrimmedAndInLowerCase(_ email: String, _ name: String) {
        #expect(SignInAdmission.accountName(email) == name)
    }

    /// A ticket is good only for the account and the server it was issued for, and not once altered.
    @Test func ticketsAreBoundToTheirAccountAndServer() throws {
        let tickets = SignInTickets(secret: SymmetricKey(size: .bits256))
        let ticket = tickets.issue(account: "ada@example.com")
        let id = try #require(tickets.id(of: ticket, account: "ada@example.com"))
        #expect(ticket.hasPrefix(id + "."))
        #expect(tickets.issue(account: "ada@example.com") != ticket, "each ticket has an id of its own")
        #expect(tickets.id(of: ticket, account: "bob@example.com") == nil)
        #expect(SignInTickets(secret: SymmetricKey(size: .bits256)).id(of: ticket, account: "ada@example.com") == nil)
        var altered = Array(ticket)
        altered[altered.count - 1] = altered.last == "0" ? "1" : "0"
        #expect(tickets.id(of: String(altered), account: "ada@example.com") == nil)
        for garbage in [nil, "", ".", "abc.def", String(repeating: "a", count: 97)] { #expect(tickets.id(of: garbage, account: "ada@example.com") == nil) }
    }
}
