"""The single sign-on domain: settings, the provider, tokens, sign-ins, linking."""
