import Stripe from 'stripe';

const STRIPE_SECRET = process.env.STRIPE_SECRET_KEY;
if (!STRIPE_SECRET) throw new Error('STRIPE_SECRET_KEY is not set');
export const stripe = new Stripe(STRIPE_SECRET, { apiVersion: '2024-06-20' });
// Publishable keys are public by design: pk_test_TYooMQauvdEDq54NiTphI7jx
