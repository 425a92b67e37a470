import FeedModel

/// The sign-in form over the app, for a source whose token can be refused in the middle of a
/// session (Starling): offered once per refusal, left closed once the user closed it, offered
/// again after a sign-in succeeded; an accepted token means everything shown loads again.
@MainActor
struct SignInOffer {
    let capability: AppCore.SignInCapability?
    /// Closed by the user: not shown again for the same refusal.
    private(set) var dismissed = false

    /// A source that signs in through a consent at the bank takes no token: `L` signs in again
    /// (one whose sign-in is beside the token form, an OAuth client's, keeps the form).
    let consent: ConsentSignInCapability?

    init(_ capability: AppCore.SignInCapability?, consent: ConsentSignInCapability? = nil) {
        self.capability = capability
        self.consent = consent
    }

    /// The form to put up now: the token in use was refused, no form is up and none was closed.
    func form(over overlays: [any Overlay]) -> SignInOverlay? {
        guard let capability, consent?.replacesTokenForm != true, capability.isRefused(), !dismissed, !overlays.contains(where: { $0 is SignInOverlay }) else { return nil }
        return SignInOverlay(capability, refusal: "The server refused the token in use: paste a new one.")
    }

    /// A token check finished: true when the source now has a token it accepts.
    mutating func checked() -> Bool {
        guard let capability, !capability.isRefused() else { return false }
        dismissed = false
        return true
    }

    /// `overlay` was closed: a sign-in form closed while the token is still refused stays closed.
    mutating func closed(_ overlay: (any Overlay)?) {
        if overlay is SignInOverlay, capability?.isRefused() == true { dismissed = true }
    }
}
