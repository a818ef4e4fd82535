import passport from 'passport';
import { Strategy as GitHubStrategy } from 'passport-github2';

passport.use(
  new GitHubStrategy(
    {
      clientID: process.env.GITHUB_CLIENT_ID ?? '',
      clientSecret: process.env.GITHUB_CLIENT_SECRET ?? '',
      callbackURL: 'https://app.example.com/auth/github/callback',
    },
    (_accessToken: string, _refreshToken: string, profile: unknown, done: (e: unknown, u?: unknown) => void) => done(null, profile),
  ),
);
