import DemoData
import DemoServer
import EnableBankingClient
import EnableBankingSource
import Foundation
import Testing
import TestSupport

/// The real binary against the look-alike's faults (`serve --fault NAME`): each of the spec's
/// errors ends in the exit status and the one line, with the way out, that the spec gives it.
/// The look-alike serves a session's sign-in read, then the fault: `refresh-after = "0s"` makes
/// the second command read again.
@Suite(.timeLimit(.minutes(2))) struct EnableBankingFaultTests {
    typealias Bank = EnableBankingHeadlessTests.Bank

    /// The stderr lines of a run that are not empty.
    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    /// The user revoked the consent at the bank: 401 `REVOKED_SESSION` is the consent's end,
    /// recorded, 77 with the way out; the next command sends nothing and says the same.
    @Test func aRevokedConsentExits77AndIsRecorded() async throws {
        let bank = try await Bank(days: 90, goals: "Balloons; Dog", faults: [EnableBankingDemoAPI.revokeFault], refreshAfter: "0s")
        let first = await bank.run(["goals"])
        #expect(first.status == 0, "\(first.error)")
        let revoked = await bank.run(["goals"])
        #expect(revoked.status == 77, "\(revoked.error)")
        let line = Self.lines(revoked.error)
        #expect(line.count == 1, "\(revoked.error)")
        #expect(line.first?.contains("REVOKED_SESSION") == true && line.first?.hasSuffix("run qapital-tui login enablebanking)") == true,
                "\(revoked.error)")
        #expect(revoked.output.isEmpty)
        #expect(bank.record?.endedEarly == "REVOKED_SESSION")
        let before = await bank.counter.requests
        let after = await bank.run(["goals"])
        #expect(after.status == 77 && after.error.contains("login enablebanking"), "\(after.error)")
        #expect(await bank.counter.requests == before, "a request after the consent ended")
        await bank.stop()
    }

    /// `ASPSP_ERROR`: no answer from the bank. What is kept is answered (exit 0), and stderr says
    /// in one line that the read failed and when to try again.
    @Test func theBanksErrorKeepsWhatWasKeptAndSaysSo() async throws {
        let bank = try await Bank(days: 90, goals: "Balloons; Dog", faults: [EnableBankingDemoAPI.aspspErrorFault], refreshAfter: "0s")
        #expect(await bank.run(["goals"]).status == 0)
        let failed = await bank.run(["goals"])
        #expect(failed.status == 0, "\(failed.error)")
        #expect(failed.output.contains("Balloons") && failed.output.contains("Dog"), "\(failed.output)")
        let line = Self.lines(failed.error)
        #expect(line.count == 1 && line.first?.contains("no answer from the bank (ASPSP_ERROR)") == true, "\(failed.error)")
        #expect(line.first?.hasSuffix("press r later") == true, "\(failed.error)")
        await bank.stop()
    }

    /// `ACCOUNT_DOES_NOT_EXIST` for one account: that account is named, the others are read.
    @Test func aGoneAccountIsNamedAndTheOthersGoOn() async throws {
        let bank = try await Bank(days: 90, goals: "Balloons; Dog", faults: [EnableBankingDemoAPI.accountGoneFault], refreshAfter: "0s")
        #expect(await bank.run(["goals"]).status == 0)
        let gone = await bank.run(["activity", "--output", "json"])
        #expect(gone.status == 0, "\(gone.error)")
        let line = Self.lines(gone.error)
        #expect(line.count == 1 && line.first?.contains("Travel Card") == true
                && line.first?.contains("cannot be read (ACCOUNT_DOES_NOT_EXIST)") == true, "\(gone.error)")
        #expect(gone.output.contains("Everyday Account"))
        await bank.stop()
    }

    /// `PSU_HEADER_NOT_PROVIDED`: a bank that reads only with the user present refuses an
    /// unattended read; nothing kept to answer with, so the command fails (1) saying `r`.
    @Test func aBankThatWantsTheUserPresentRefusesAHeadlessRead() async throws {
        let bank = try await Bank(days: 90, goals: "Balloons; Dog", faults: [EnableBankingDemoAPI.psuHeaderFault])
        let refused = await bank.run(["goals"])
        #expect(refused.status == 1, "\(refused.error)")
        let line = Self.lines(refused.error)
        #expect(line.count == 1 && line.first?.contains("PSU_HEADER_NOT_PROVIDED") == true && line.first?.hasSuffix("press r") == true,
                "\(refused.error)")
        await bank.stop()
    }

    /// An application not activated in the Control Panel: `login` exits 77 with how to activate it.
    @Test func loginWithAnInactiveApplicationExits77() async throws {
        let bank = try await Bank(days: 90, faults: [EnableBankingDemoAPI.inactiveFault])
        let login = await bank.run(["login", "enablebanking", "--api-url", bank.base, "--paste", "--no-browser"], source: false)
        #expect(login.status == 77, "\(login.error)")
        #expect(Self.lines(login.error) == ["activate the application in the Control Panel by linking your accounts"], "\(login.error)")
        #expect(login.output.isEmpty)
        await bank.stop()
    }

    /// A redirect URL the application has not registered: `POST /auth` is refused
    /// (`REDIRECT_URI_NOT_ALLOWED`), in one line naming what to do; nothing is opened.
    @Test func loginWithAnUnregisteredRedirectIsRefused() async throws {
        let bank = try await Bank(days: 90)
        let login = await bank.run(["login", "enablebanking", "--api-url", bank.base, "--no-browser",
                                    "--redirect-url", "http://127.0.0.1:8799/elsewhere"], source: false)
        #expect(login.status == 1, "\(login.error)")
        let line = Self.lines(login.error)
        #expect(line.count == 1 && line.first?.contains("REDIRECT_URI_NOT_ALLOWED") == true
                && line.first?.contains("--redirect-url") == true, "\(login.error)")
        #expect(!login.output.contains("Open this address"))
        await bank.stop()
    }

    /// `goals = "Baloons; Dog"`: Dog is shown, and the misspelt name is said on stderr in one
    /// line with the accounts to choose from (it silently became a spending account before).
    @Test func aGoalNameThatMatchesNoAccountIsNamed() async throws {
        let bank = try await Bank(days: 90, goals: "Baloons; Dog")
        let result = await bank.run(["goals"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("Dog"))
        let line = Self.lines(result.error)
        #expect(line.count == 1, "\(result.error)")
        #expect(line.first?.hasPrefix("qapital-tui: [enablebanking] goals \"Baloons\" names no account in ") == true, "\(result.error)")
        #expect(line.first?.hasSuffix("(accounts: Everyday Account, Balloons, Dog, Travel Card)") == true, "\(result.error)")
        await bank.stop()
    }
}
