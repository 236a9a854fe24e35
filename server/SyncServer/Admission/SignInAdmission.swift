import Foundation

/// Which failure counts a password check waits for, adds to and clears: a pure decision that
/// ``SignInThrottle`` carries out against Postgres.
///
/// Without a sign-in ticket, a check waits for three counts: the account from this address (a
/// few free failures), the address (guessing many accounts) and the account from every address
/// (guessing one account from many addresses). With a ticket this server issued for the account
/// (``SignInTickets``), only the ticket's own count applies: a device that signed in before is
/// never made to wait by failures others caused, from its address (a shared NAT, an untrusted
/// proxy) or at its account from elsewhere.
enum SignInAdmission {
    /// One count, and the failures it allows before waits begin.
    struct Count: Equatable {
        let key: String
        let free: Int
    }

    struct Plan: Equatable {
        /// Counts whose wait refuses the check, before any password is hashed.
        var waitFor: [String]
        /// Counts a failure adds to.
        var countFailure: [Count]
        /// Counts a success clears. The account's count from every address is not among them: the
        /// owner signing in must not hand a distributed guesser a fresh allowance.
        var clearOnSuccess: [String]
    }

    /// The plan for a check of `account`'s password (``accountName(_:)``) from `address`, with the
    /// id of a valid ticket for that account, if one came.
    static func plan(account: String, address: String, ticketID: String?, policy: SignInThrottlePolicy) -> Plan {
        let fromAddress = "account:\(account)|\(address)"
        if let ticketID {
            let ticket = "ticket:\(ticketID)"
            return Plan(waitFor: [ticket], countFailure: [Count(key: ticket, free: policy.freeAccountFailures)], clearOnSuccess: [ticket, fromAddress])
        }
        return threeCounts(fromAddress: fromAddress, address: address, everywhere: Count(key: "everywhere:\(account)", free: policy.freeAccountFailuresEverywhere), policy)
    }

    /// The plan for a check of one of `account`'s app passwords from `address` (WebDAV): its own
    /// counts, apart from password sign-ins', so that failed app passwords never make the web or
    /// a device's sign-in wait; the account from one address and the address as for passwords,
    /// and the account from every address only past a high ceiling (an app password holds 120
    /// random bits, so this bounds load, not guessing): eleven wrong ones from eleven addresses
    /// locked every WebDAV client of the account out.
    static func appPasswordPlan(account: String, address: String, policy: SignInThrottlePolicy) -> Plan {
        threeCounts(
            fromAddress: "app:\(account)|\(address)", address: address,
            everywhere: Count(key: "app-everywhere:\(account)", free: policy.freeAppPasswordFailuresEverywhere), policy)
    }

    /// A bearer token (an agent's, on `/mcp`) names no account: only its address is counted, as
    /// any address's failures are. An account-wide count would let anyone hold every agent off.
    static func tokenPlan(address: String, policy: SignInThrottlePolicy) -> Plan {
        let key = "address:\(address)"
        return Plan(waitFor: [key], countFailure: [Count(key: key, free: policy.freeAddressFailures)], clearOnSuccess: [])
    }

    /// The account from one address (cleared by a success), the address, and the account from
    /// every address: what a check without a ticket waits for and counts.
    private static func threeCounts(fromAddress: String, address: String, everywhere: Count, _ policy: SignInThrottlePolicy) -> Plan {
        let addressKey = "address:\(address)"
        return Plan(
            waitFor: [fromAddress, addressKey, everywhere.key],
            countFailure: [Count(key: fromAddress, free: policy.freeAccountFailures), Count(key: addressKey, free: policy.freeAddressFailures), everywhere],
            clearOnSuccess: [fromAddress])
    }

    /// The name an email's counts and tickets are kept under: trimmed, in lower case.
    static func accountName(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
