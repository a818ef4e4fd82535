import Anthropic from '@anthropic-ai/sdk';

export const anthropic = new Anthropic({
  apiKey: 'sk-ant-api03-Cc2xbNDaWdoqNdTOniqNcM_8ZvU4mOjGiDWfOXL6oDQRPR39TP2Fcit5EJhueUa1GnoBcMqHaWB8m25yX9H3bJP-Nih7TAA', // VULN: secret
});
