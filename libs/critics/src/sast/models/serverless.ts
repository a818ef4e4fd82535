import type { FrameworkModel } from './types.js';

/**
 * AWS Lambda and Azure Functions: an API Gateway event has request fields; the event of any other
 * trigger (queue message, S3 object key, EventBridge detail) is data someone else wrote, so every
 * field of an exported handler's event is input — except the platform's own request context.
 */
export const serverlessModel: FrameworkModel = {
  id: 'serverless',
  description:
    'API Gateway/ALB events (queryStringParameters, pathParameters, body…), any field of the event of an exported handler(event), Azure HttpRequest.',
  entryHint: /\b(event|evt)\b|APIGateway|\bhandler\b/,
  requests: [
    {
      flavor: 'http',
      origin: 'http',
      fields: [
        'queryStringParameters',
        'multiValueQueryStringParameters',
        'pathParameters',
        'multiValueHeaders',
        'body',
      ],
      scalarFields: ['pathParameters'],
    },
    {
      flavor: 'lambda',
      origin: 'http',
      fields: '*',
      exceptFields: [
        'requestContext',
        'stageVariables',
        'resource',
        'httpMethod',
        'isBase64Encoded',
        'version',
        'routeKey',
      ],
    },
  ],
  parameters: {
    types: [
      { name: /^(APIGatewayProxyEvent\w*|APIGatewayEvent|ALBEvent|HttpRequest)$/, flavor: 'http' },
      {
        name: /^(SQSEvent|SNSEvent|S3Event|EventBridgeEvent|DynamoDBStreamEvent|KinesisStreamEvent|CloudWatchLogsEvent|\w+TriggerEvent)$/,
        flavor: 'lambda',
      },
    ],
    names: ['event', 'evt'],
    exportedHandlers: { names: /^(handler|lambdaHandler)$/, flavor: 'lambda' },
  },
};
