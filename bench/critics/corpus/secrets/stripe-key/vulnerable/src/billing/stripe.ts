import Stripe from 'stripe';

const STRIPE_SECRET = 'sk_live_ieN4QrCIu1isc4UxdJDJmATl4GjUQg1A'; // VULN: secret
export const stripe = new Stripe(STRIPE_SECRET, { apiVersion: '2024-06-20' });
